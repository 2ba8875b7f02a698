/**
 * The review queue a class at a time: for each class with actions waiting
 * (reads, writes, destructive), approve them all or keep them all off in one
 * change. It names the actions shown in the queue, so an action that started
 * waiting after the page loaded is never approved unseen.
 */
import { changeActions } from '../action-changes.ts';
import { Problem } from '../problem.tsx';
import type { ActionView } from '../types.ts';
import { useChange } from '../use-change.ts';

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
  const classes = CLASSES.map((c) => ({
    ...c,
    names: waiting.filter((a) => a.classification === c.id).map((a) => a.name),
  })).filter((c) => c.names.length > 0);
  if (classes.length === 0) return null;
  const decide = (verb: 'review' | 'disable', names: string[], what: string) =>
    change.run(
      () => changeActions(connection, verb, { actions: names }),
      `${verb === 'review' ? 'Approved' : 'Kept off'}: ${names.length} ${what}.`,
    );
  return (
    <fieldset class="by-class">
      <legend class="skip">Review a class at a time</legend>
      <Problem error={change.error} />
      {classes.map((c) => {
        const what = c.names.length === 1 ? c.one : c.many;
        return (
          <div class="class-row" key={c.id} data-class={c.id}>
            <span>
              <b>{c.label}</b> <span class="note">{c.names.length} waiting</span>
            </span>
            <div class="actions tight">
              <button
                type="button"
                class="primary"
                disabled={!canChange}
                onClick={() => decide('review', c.names, what)}
              >
                {c.names.length === 1
                  ? `Approve the ${c.one}`
                  : `Approve all ${c.names.length} ${c.many}`}
              </button>
              <button
                type="button"
                disabled={!canChange}
                onClick={() => decide('disable', c.names, what)}
              >
                {c.names.length === 1
                  ? `Keep the ${c.one} off`
                  : `Keep all ${c.names.length} ${c.many} off`}
              </button>
            </div>
          </div>
        );
      })}
    </fieldset>
  );
}
