/**
 * One audit event as a row of the audit log's tables (the log's pages and
 * its live tail); a call made on a member's behalf says so under its actor,
 * with the delegation chain. Every name is shown as text.
 */
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import type { AuditEvent } from '../types.ts';

export function AuditRow({ event, names }: { event: AuditEvent; names: Map<string, string> }) {
  return (
    <tr data-event={event.id}>
      <td data-label="Time">
        <ShownTime at={event.at} />
      </td>
      <td data-label="Actor">
        {shown(event.actorName)}
        {event.onBehalfOf ? <Delegation chain={event.onBehalfOf} /> : null}
      </td>
      <td data-label="Action">
        <code>{shown(event.action)}</code>
      </td>
      <td data-label="Connection">
        {event.connectionId ? shown(names.get(event.connectionId) ?? '(removed)') : '—'}
      </td>
      <td data-label="Outcome">
        {event.decision === 'denied' ? 'denied' : event.outcome === 'error' ? 'failed' : 'allowed'}
        {event.reason ? (
          <>
            {' '}
            <code>{shown(event.reason)}</code>
          </>
        ) : null}
      </td>
    </tr>
  );
}

/** Whom a call acted for, and the chain it went through: member, agent, OAuth client (and the IdP whose ID-JAG its token came from). */
function Delegation({ chain }: { chain: NonNullable<AuditEvent['onBehalfOf']> }) {
  return (
    <span class="note delegation">
      on behalf of <b>{shown(chain.member)}</b>
      <span class="chain">
        member {shown(chain.member)} → agent {shown(chain.agent)} → client{' '}
        {chain.client === null ? 'none (an agent key)' : shown(chain.client)}
        {chain.idp === undefined ? null : <> (ID-JAG from the IdP {shown(chain.idp)})</>}
      </span>
    </span>
  );
}

export function AuditHead() {
  return (
    <thead>
      <tr>
        <th scope="col">Time</th>
        <th scope="col">Actor</th>
        <th scope="col">Action</th>
        <th scope="col">Connection</th>
        <th scope="col">Outcome</th>
      </tr>
    </thead>
  );
}
