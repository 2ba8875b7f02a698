/**
 * Calls held for approval (docs/approvals.md): each pending call with the
 * agent, the member it acts for, the connection (its Unverified label while
 * no curated definition names it), the action and its class, and the exact
 * arguments, which are the agent's text: shown inert, never as markup,
 * write-only values already masked by the gateway. Owners and operators
 * approve or deny (with a reason); the list reads itself again every few
 * seconds, so a call held now shows up without a reload.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Notice } from '../notice.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { ClassBadge } from './action-badges.tsx';

export interface ApprovalRow {
  id: string;
  state: 'pending' | 'approved' | 'denied' | 'expired' | 'executed';
  agent: string;
  member: string | null;
  connection: string;
  server?: { label: string; verified: boolean };
  action: string;
  classification: 'read' | 'write' | 'destructive';
  arguments: Record<string, unknown>;
  argumentsHash: string;
  createdAt: string;
  expiresAt: string;
  decidedBy: string | null;
  reason: string | null;
  task: boolean;
}

/** How often the page (and the count in the navigation) reads the approvals again. */
export const APPROVALS_EVERY_MS = 5_000;

export function ApprovalsPage({ canChange }: { canChange: boolean }) {
  const { data, error, reload } = useLoad(
    () => api<ApprovalRow[]>('GET', '/approvals?state=pending'),
    'approvals',
  );
  useEffect(() => {
    const timer = setInterval(reload, APPROVALS_EVERY_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const change = useChange(() => reload());
  const decide = (row: ApprovalRow, verb: 'approve' | 'deny', reason?: string) =>
    change.run(
      () =>
        api('POST', `/approvals/${encodeURIComponent(row.id)}/${verb}`, reason ? { reason } : {}),
      verb === 'approve'
        ? `Approved ${row.id}: ${row.action} runs once for ${row.agent}.`
        : `Denied ${row.id}: ${row.action} will not run.`,
    );
  return (
    <>
      <h1>Approvals</h1>
      <p class="note">
        Calls to actions set to ask first wait here until an owner or operator approves or denies
        them. An approval covers that one call, with exactly these arguments, once.
      </p>
      <Problem error={error ?? change.error} />
      <Notice text={change.done} />
      {data && data.length === 0 ? <p class="panel">No call is waiting for approval.</p> : null}
      {(data ?? []).map((row) => (
        <HeldCall key={row.id} row={row} canChange={canChange} onDecide={decide} />
      ))}
    </>
  );
}

function HeldCall({
  row,
  canChange,
  onDecide,
}: {
  row: ApprovalRow;
  canChange: boolean;
  onDecide: (row: ApprovalRow, verb: 'approve' | 'deny', reason?: string) => void;
}) {
  const [reason, setReason] = useState('');
  const heading = `approval-${row.id}`;
  return (
    <section class="panel" aria-labelledby={heading} data-approval={row.id}>
      <h2 id={heading}>
        <code>{shown(row.action)}</code> <ClassBadge action={row} />
      </h2>
      <dl class="facts">
        <dt>Agent</dt>
        <dd>
          {shown(row.agent)}
          {row.member === null ? null : <span class="note"> for {shown(row.member)}</span>}
        </dd>
        <dt>Connection</dt>
        <dd>
          {shown(row.connection)}
          {row.server && !row.server.verified ? (
            <>
              {' '}
              <span class="badge flagged">Unverified server</span>
            </>
          ) : null}
          {row.server ? <span class="note"> {shown(row.server.label)}</span> : null}
        </dd>
        <dt>Held</dt>
        <dd>
          <ShownTime at={row.createdAt} />, until <ShownTime at={row.expiresAt} />
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{shown(row.id)}</code>
        </dd>
      </dl>
      <p class="note">Arguments (the agent's text, exactly as it will be sent):</p>
      <pre class="arguments">{shown(JSON.stringify(row.arguments, null, 2))}</pre>
      {canChange ? (
        <div class="decide">
          <button type="button" onClick={() => onDecide(row, 'approve')}>
            Approve <span class="skip">{shown(row.id)}</span>
          </button>
          <label class="reason">
            Reason to deny
            <input
              type="text"
              value={reason}
              maxLength={500}
              onInput={(event) => setReason((event.target as HTMLInputElement).value)}
            />
          </label>
          <button type="button" class="danger" onClick={() => onDecide(row, 'deny', reason)}>
            Deny <span class="skip">{shown(row.id)}</span>
          </button>
        </div>
      ) : null}
    </section>
  );
}
