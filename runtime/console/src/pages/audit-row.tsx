/** One audit event as a row of the audit log's tables (the log's pages and its live tail). */
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import type { AuditEvent } from '../types.ts';

export function AuditRow({ event, names }: { event: AuditEvent; names: Map<string, string> }) {
  return (
    <tr data-event={event.id}>
      <td data-label="Time">
        <ShownTime at={event.at} />
      </td>
      <td data-label="Actor">{shown(event.actorName)}</td>
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
