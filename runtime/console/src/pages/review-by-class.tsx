/**
 * The review queue a class at a time: for each class with actions waiting
 * (reads, writes, destructive), approve them all or keep them all off in one
 * change. It names the actions shown in the queue, so an action that started
 * waiting after the page loaded is never approved unseen. Where the
 * deployment holds flagged items, a class with one is approved past its
 * flags only after a confirmation (`review-flags.tsx`).
 */
import { useState } from 'preact/hooks';
import { changeActions } from '../action-changes.ts';
import { Problem } from '../problem.tsx';
import type { ActionView } from '../types.ts';
import { useChange } from '../use-change.ts';
import { heldForFlags, PastFlags } from './review-flags.tsx';

export const CLASSES = [
  { id: 'read', label: 'Reads', one: 'read', many: 'reads' },
  { id: 'write', label: 'Writes', one: 'write', many: 'writes' },
  {
    id: 'destructive',
    label: 'Destructive actions',
    one: 'destructive action',
    many: 'destructive actions',
  },
] as const;

interface Props {
  connection: string;
  waiting: ActionView[];
  canChange: boolean;
  onChanged: (done: string) => void;
}

export function QueueByClass({ connection, waiting, canChange, onChanged }: Props) {
  const change = useChange(onChanged);
  /** The class whose approval the gateway held for its flagged items. */
  const [held, setHeld] = useState<string>();
  const classes = CLASSES.map((c) => ({
    ...c,
    names: waiting.filter((a) => a.classification === c.id).map((a) => a.name),
    flagged: waiting.filter((a) => a.classification === c.id && a.flags).length,
  })).filter((c) => c.names.length > 0);
  if (classes.length === 0) return null;
  const decide = async (
    verb: 'review' | 'disable',
    c: { id: string; names: string[] },
    what: string,
    force = false,
  ) => {
    setHeld(undefined);
    let flaggedRefusal = false;
    await change.run(
      async () => {
        try {
          await changeActions(connection, verb, {
            actions: c.names,
            ...(force ? { force: true as const } : {}),
          });
        } catch (error) {
          flaggedRefusal = verb === 'review' && heldForFlags(error);
          throw error;
        }
      },
      `${verb === 'review' ? (force ? 'Approved past their flags' : 'Approved') : 'Kept off'}: ${c.names.length} ${what}.`,
    );
    if (flaggedRefusal) setHeld(c.id);
  };
  return (
    <fieldset class="by-class">
      <legend class="skip">Review a class at a time</legend>
      <Problem error={held ? undefined : change.error} />
      {classes.map((c) => {
        const what = c.names.length === 1 ? c.one : c.many;
        return (
          <div class="class-row" key={c.id} data-class={c.id}>
            <span>
              <b>{c.label}</b>{' '}
              <span class="note">
                {c.names.length} waiting{c.flagged > 0 ? `, ${c.flagged} flagged` : ''}
              </span>
            </span>
            <div class="actions tight">
              <button
                type="button"
                class="primary"
                disabled={!canChange}
                onClick={() => decide('review', c, what)}
              >
                {c.names.length === 1
                  ? `Approve the ${c.one}`
                  : `Approve all ${c.names.length} ${c.many}`}
              </button>
              <button
                type="button"
                disabled={!canChange}
                onClick={() => decide('disable', c, what)}
              >
                {c.names.length === 1
                  ? `Keep the ${c.one} off`
                  : `Keep all ${c.names.length} ${c.many} off`}
              </button>
            </div>
            {held === c.id ? (
              <PastFlags
                what={`all ${c.names.length} ${what}`}
                canChange={canChange}
                onConfirm={() => decide('review', c, what, true)}
                onCancel={() => setHeld(undefined)}
              />
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
