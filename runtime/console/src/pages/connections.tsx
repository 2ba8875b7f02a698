/**
 * Connections: each one's kind, health, what waits for review and the last
 * error; a remote server no curated definition vouches for carries the
 * Unverified server label with its host.
 */
import { api } from '../api.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import type { ConnectionSummary } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { ServerLabel, serverOf } from './server-label.tsx';

export function ConnectionsPage() {
  const { data, error } = useLoad(
    () => api<ConnectionSummary[]>('GET', '/connections'),
    'connections',
  );
  return (
    <>
      <h1>Connections</h1>
      <p>
        <a class="gallery-button" href="#/connect">
          Connect an app
        </a>{' '}
        or <a href="#/connect/own">connect your own MCP server</a>
      </p>
      <Problem error={error} />
      {data && data.length === 0 ? <p>No connections yet.</p> : null}
      {data && data.length > 0 ? (
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Health</th>
              <th scope="col">Review</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {data.map((summary) => (
              <Row key={summary.connection.id} summary={summary} />
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function Row({ summary }: { summary: ConnectionSummary }) {
  const { connection, kind, awaitingReview, lastError } = summary;
  const remote = connection.remote;
  return (
    <tr data-connection={connection.name}>
      <td data-label="Name">
        <a href={`#/connections/${encodeURIComponent(connection.name)}`}>
          {shown(connection.name)}
        </a>
        {connection.status === 'disabled' ? <span class="note"> (disabled)</span> : null}
        {remote?.draft ? <DraftNote name={connection.name} draft={remote.draft} /> : null}
      </td>
      <td data-label="Kind">
        {kind === 'native' ? (
          <>
            native <span class="note">({shown(connection.provider)})</span>
          </>
        ) : remote ? (
          <ServerLabel server={serverOf(remote)} brief />
        ) : (
          kind
        )}
      </td>
      <td data-label="Health">
        <span class={`badge health-${connection.health}`}>{connection.health}</span>
      </td>
      <td data-label="Review">
        {awaitingReview > 0 ? (
          <a href={`#/connections/${encodeURIComponent(connection.name)}`}>
            {awaitingReview} waiting
          </a>
        ) : (
          'nothing waiting'
        )}
      </td>
      <td data-label="Last error">
        {lastError ? (
          <>
            <code>{shown(lastError.reason ?? 'error')}</code>{' '}
            <span class="note">
              {shown(lastError.action)}, <ShownTime at={lastError.at} />
            </span>
          </>
        ) : (
          'none'
        )}
      </td>
    </tr>
  );
}

/** A draft kept while it waits for a sign-in or a key: what it needs, and where to continue it. */
function DraftNote({ name, draft }: { name: string; draft: unknown }) {
  return (
    <span class="draft">
      {' '}
      <span class="badge">
        draft: {draft === 'sign_in_needed' ? 'needs a sign-in' : 'needs a key or headers'}
      </span>{' '}
      <a href={`#/connect/own/${encodeURIComponent(name)}`}>
        Continue <span class="skip">{shown(name)}</span>
      </a>
    </span>
  );
}
