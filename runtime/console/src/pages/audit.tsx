/**
 * The audit log, newest first, fifty events a page, filtered on the server
 * (agent, member: theirs and on their behalf, connection, action, outcome, time range) and paged back by the
 * last event's id: as fast at the millionth event as at the first.
 */
import { useState } from 'preact/hooks';
import { api, queryOf } from '../api.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import type { Agent, ConnectionSummary, AuditPage as Page } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { AuditHead, AuditRow } from './audit-row.tsx';
import { AuditTail } from './audit-tail.tsx';

interface Filters {
  agent: string;
  member: string;
  connection: string;
  action: string;
  outcome: '' | 'allowed' | 'denied' | 'error';
  since: string;
  until: string;
}

const NONE: Filters = {
  agent: '',
  member: '',
  connection: '',
  action: '',
  outcome: '',
  since: '',
  until: '',
};

export function AuditPage() {
  const [form, setForm] = useState<Filters>(NONE);
  const [applied, setApplied] = useState<Filters>(NONE);
  const [cursors, setCursors] = useState<number[]>([]);
  const beforeId = cursors.at(-1);
  const filters = {
    agent: applied.agent,
    member: applied.member,
    connection: applied.connection,
    action: applied.action,
    ...(applied.outcome === 'allowed' || applied.outcome === 'denied'
      ? { decision: applied.outcome }
      : applied.outcome === 'error'
        ? { outcome: 'error' }
        : {}),
    since: isoOf(applied.since),
    until: isoOf(applied.until),
  };
  const query = queryOf({ ...filters, beforeId });
  const { data, error } = useLoad(() => api<Page>('GET', `/audit${query}`), query);
  const agents = useLoad(() => api<Agent[]>('GET', '/agents'), 'agents').data ?? [];
  const members =
    useLoad(() => api<Array<{ id: string; name: string }>>('GET', '/members'), 'members').data ??
    [];
  const connections =
    useLoad(() => api<ConnectionSummary[]>('GET', '/connections'), 'connections').data ?? [];
  const names = new Map(connections.map((c) => [c.connection.id, c.connection.name]));
  const set = (field: keyof Filters) => (event: Event) =>
    setForm({ ...form, [field]: (event.currentTarget as HTMLInputElement).value });
  const apply = (event: Event) => {
    event.preventDefault();
    setApplied(form);
    setCursors([]);
  };
  return (
    <>
      <h1>Audit log</h1>
      <form class="panel" onSubmit={apply} aria-label="Filters">
        <div class="filters">
          <div>
            <label for="f-agent">Agent</label>
            <select id="f-agent" value={form.agent} onChange={set('agent')}>
              <option value="">Any agent</option>
              {agents.map((a) => (
                <option key={a.id} value={a.name}>
                  {shown(a.name)}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-member">Member</label>
            <select id="f-member" value={form.member} onChange={set('member')}>
              <option value="">Any member</option>
              {members.map((m) => (
                <option key={m.id} value={m.name}>
                  {shown(m.name)}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-connection">Connection</label>
            <select id="f-connection" value={form.connection} onChange={set('connection')}>
              <option value="">Any connection</option>
              {connections.map((c) => (
                <option key={c.connection.id} value={c.connection.name}>
                  {shown(c.connection.name)}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-action">Action</label>
            <input
              id="f-action"
              value={form.action}
              placeholder="agent.create"
              onInput={set('action')}
            />
          </div>
          <div>
            <label for="f-outcome">Outcome</label>
            <select id="f-outcome" value={form.outcome} onChange={set('outcome')}>
              <option value="">Any outcome</option>
              <option value="allowed">Allowed</option>
              <option value="denied">Denied</option>
              <option value="error">Failed</option>
            </select>
          </div>
          <div>
            <label for="f-since">From</label>
            <input id="f-since" type="datetime-local" value={form.since} onInput={set('since')} />
          </div>
          <div>
            <label for="f-until">Until</label>
            <input id="f-until" type="datetime-local" value={form.until} onInput={set('until')} />
          </div>
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          <button
            type="button"
            onClick={() => {
              setForm(NONE);
              setApplied(NONE);
              setCursors([]);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <AuditTail filters={queryOf(filters)} names={names} />
      <Problem error={error} />
      {data && data.events.length === 0 ? <p>No events match these filters.</p> : null}
      {data && data.events.length > 0 ? (
        <table class="cards" aria-label="Audit events">
          <AuditHead />
          <tbody>
            {data.events.map((event) => (
              <AuditRow key={event.id} event={event} names={names} />
            ))}
          </tbody>
        </table>
      ) : null}
      <div class="actions">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors([])}>
          Newest
        </button>
        <button
          type="button"
          disabled={!data?.nextBeforeId}
          onClick={() => data?.nextBeforeId && setCursors([...cursors, data.nextBeforeId])}
        >
          Older
        </button>
      </div>
    </>
  );
}

/** A `datetime-local` value (the browser's local time) as an ISO instant; empty stays empty. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}
