/**
 * A connection's review queue: its actions never reviewed or changed since
 * their review, each with what changed (texts word by word, side by side;
 * schemas by JSON pointer), all of it the server's text shown as text.
 * Approve puts the current contract in service (its class default for a new
 * one); Keep off disables it; a remote item's review flags are shown on it
 * (`review-flags.tsx`), and where the deployment holds flagged items an
 * approval the gateway refuses for them asks for a confirmation first; one at a time or a class at a time
 * (`review-by-class.tsx`). Below: its policies by class, its grants
 * (`connection-access.tsx`) and the rest of its actions, each switched on or
 * off on its own (`action-policies.tsx`), and for a remote server that names
 * apps its MCP Apps turned on or off (`connection-apps.tsx`). A remote server no curated
 * definition vouches for carries the Unverified server label with its host
 * under the title and on each of those sections.
 */

import { useState } from 'preact/hooks';
import { changeActions } from '../action-changes.ts';
import { api } from '../api.ts';
import { Notice } from '../notice.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import type { ActionView, ConnectionSummary, ContractChange, TextPart } from '../types.ts';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { ClassBadge, FeatureKind } from './action-badges.tsx';
import { ActionPolicies } from './action-policies.tsx';
import { AppReviewPanel } from './app-review.tsx';
import { ClassPolicies, Grants } from './connection-access.tsx';
import { ConnectionApps } from './connection-apps.tsx';
import { QueueByClass } from './review-by-class.tsx';
import { FlagCount, heldForFlags, PastFlags, ReviewFlags } from './review-flags.tsx';
import { ServerLabel, serverOf } from './server-label.tsx';
import { UpstreamAuth } from './upstream-auth.tsx';

export function ReviewPage({ connection, canChange }: { connection: string; canChange: boolean }) {
  const path = `/connections/${encodeURIComponent(connection)}/actions`;
  const { data, error, reload } = useLoad(() => api<ActionView[]>('GET', path), path);
  const record = `/connections/${encodeURIComponent(connection)}`;
  const summary = useLoad(() => api<ConnectionSummary>('GET', record), record);
  const remote = summary.data?.connection.remote;
  const server = remote ? serverOf(remote) : undefined;
  const change = useChange(() => reload());
  /** The item whose approval the gateway held for its flags, waiting for a confirmation. */
  const [held, setHeld] = useState<string>();
  const decide = async (verb: 'review' | 'disable', action: ActionView, force = false) => {
    setHeld(undefined);
    let flaggedRefusal = false;
    await change.run(
      async () => {
        try {
          await changeActions(connection, verb, {
            actions: [action.name],
            ...(force ? { force: true as const } : {}),
          });
        } catch (error) {
          flaggedRefusal = verb === 'review' && heldForFlags(error);
          throw error;
        }
      },
      `${verb === 'review' ? (force ? 'Approved past its flags' : 'Approved') : 'Kept off'}: ${action.name}`,
    );
    if (flaggedRefusal) setHeld(action.name);
  };
  const waiting = (data ?? []).filter(
    (a) => (a.review === 'new' || a.review === 'changed') && a.state !== 'disabled',
  );
  const rest = (data ?? []).filter((a) => !waiting.includes(a));
  return (
    <>
      <p>
        <a href="#/connections">← Connections</a>
      </p>
      <h1>Review {shown(connection)}</h1>
      {server ? <ServerLabel server={server} /> : null}
      {remote?.signIn?.issuer ? <UpstreamAuth signIn={remote.signIn} /> : null}
      <Problem error={error ?? (held ? undefined : change.error)} />
      <Notice text={change.done} />
      <section class="panel" aria-labelledby="waiting">
        <h2 id="waiting">Waiting for review ({waiting.length})</h2>
        {data && waiting.length === 0 ? <p>Nothing waits for review.</p> : null}
        <QueueByClass
          connection={connection}
          waiting={waiting}
          canChange={canChange}
          onChanged={change.record}
        />
        {waiting.map((action) => (
          <article class="review-item" key={action.action} data-action={action.name}>
            <h3>
              <code>{shown(action.name)}</code> <FeatureKind action={action} />{' '}
              <ClassBadge action={action} />{' '}
              <span class="badge">{action.review === 'new' ? 'new' : 'contract changed'}</span>{' '}
              <FlagCount flags={action.flags} />
            </h3>
            {action.title !== action.action ? <p>{shown(action.title)}</p> : null}
            {action.changes?.map((c) => (
              <Change key={c.field} change={c} />
            ))}
            {action.changedSince ? (
              <p class="note">
                Changed since <ShownTime at={action.changedSince} />.
              </p>
            ) : null}
            {action.app ? <AppReviewPanel app={action.app} item={action.name} /> : null}
            {action.flags ? <ReviewFlags flags={action.flags} item={action.name} /> : null}
            {held === action.name ? (
              <PastFlags
                what={action.name}
                canChange={canChange}
                onConfirm={() => decide('review', action, true)}
                onCancel={() => setHeld(undefined)}
              />
            ) : null}
            <div class="actions">
              <button
                type="button"
                class="primary"
                disabled={!canChange}
                onClick={() => decide('review', action)}
              >
                Approve <span class="skip">{shown(action.name)}</span>
              </button>
              <button type="button" disabled={!canChange} onClick={() => decide('disable', action)}>
                Keep off <span class="skip">{shown(action.name)}</span>
              </button>
            </div>
          </article>
        ))}
      </section>
      {data ? (
        <ClassPolicies
          connection={connection}
          server={server}
          actions={data}
          canChange={canChange}
          onChanged={change.record}
        />
      ) : null}
      {summary.data?.apps && data && (summary.data.apps === 'off' || data.some((a) => a.app)) ? (
        <ConnectionApps
          connection={connection}
          server={server}
          apps={summary.data.apps}
          actions={data}
          canChange={canChange}
          onChanged={(done) => {
            change.record(done);
            summary.reload();
          }}
        />
      ) : null}
      <Grants
        connection={connection}
        server={server}
        actions={data ?? []}
        canChange={canChange}
        onChanged={change.record}
      />
      <ActionPolicies
        connection={connection}
        server={server}
        actions={rest}
        canChange={canChange}
        onChanged={change.record}
      />
    </>
  );
}

function Change({ change }: { change: ContractChange }) {
  const parts = change.diff as Array<Partial<TextPart>>;
  const isText = parts.length === 0 || typeof parts[0]?.op === 'string';
  if (isText) {
    const text = parts as TextPart[];
    return (
      <div>
        <p>
          <b>{shown(change.field)}</b> changed:
        </p>
        <div class="diff">
          <div>
            <span class="note">Before</span>
            <pre data-side="before">
              {text
                .filter((p) => p.op !== '+')
                .map((p, i) => (p.op === '-' ? <del key={i}>{shown(p.text)}</del> : shown(p.text)))}
            </pre>
          </div>
          <div>
            <span class="note">After</span>
            <pre data-side="after">
              {text
                .filter((p) => p.op !== '-')
                .map((p, i) => (p.op === '+' ? <ins key={i}>{shown(p.text)}</ins> : shown(p.text)))}
            </pre>
          </div>
        </div>
      </div>
    );
  }
  const values = change.diff as Array<{ pointer: string; before?: unknown; after?: unknown }>;
  return (
    <div>
      <p>
        <b>{shown(change.field)}</b> changed:
      </p>
      <pre>
        {values
          .map(
            (v) =>
              `${v.pointer || '/'}: ${v.before === undefined ? '(absent)' : shown(v.before)} → ${
                v.after === undefined ? '(absent)' : shown(v.after)
              }`,
          )
          .join('\n')}
      </pre>
    </div>
  );
}
