/**
 * A remote MCP server's host and what vouches for it, the same on every
 * page that acts on it (connect, the connections list, review, access): a
 * curated definition's name, or nothing, the Unverified server label. The
 * host is the server's own text: shown as text.
 */
import type { ComponentChildren } from 'preact';
import { shown } from '../shown.ts';
import type { RemoteView } from '../types.ts';

export interface Server {
  host: string;
  /** Whether a curated definition names the server's address. */
  verified: boolean;
  curatedName?: string | undefined;
}

/** The server a connection's remote view names. */
export function serverOf(remote: RemoteView): Server {
  return { host: remote.host, verified: remote.verified, curatedName: remote.curated?.name };
}

/** `brief`: the label and host alone, in a line of text (a table cell, a section's heading). */
export function ServerLabel({ server, brief = false }: { server: Server; brief?: boolean }) {
  const Tag = brief ? 'span' : 'p';
  if (server.verified)
    return (
      <Tag class="server-label">
        <span class="badge">Curated: {shown(server.curatedName ?? '')}</span>{' '}
        <span class="mono">{shown(server.host)}</span>
      </Tag>
    );
  return (
    <Tag class="server-label unverified" data-unverified-host={server.host}>
      <span class="warn">Unverified server</span> <span class="mono">{shown(server.host)}</span>
      {brief ? null : (
        <span class="note">
          {' '}
          No curated definition vouches for this server: continue only if it is the one you expect.
        </span>
      )}
    </Tag>
  );
}

/** A section's heading on a connection's page, naming the server the section acts on. */
export function SectionHeading({
  id,
  server,
  children,
}: {
  id: string;
  server: Server | undefined;
  children: ComponentChildren;
}) {
  return (
    <h2 id={id}>
      {children}
      {server ? (
        <>
          {' '}
          <ServerLabel server={server} brief />
        </>
      ) : null}
    </h2>
  );
}
