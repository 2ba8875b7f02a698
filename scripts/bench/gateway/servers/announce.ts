/**
 * The handshake of a server child: once listening, it prints `{"url": ...}` as
 * its first stdout line; the parent reads that line and nothing else.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `extra` joins the URL on the line: an agent key, a tool name. */
export function listenAndAnnounce(
  server: Server,
  path = '',
  extra: Record<string, unknown> = {},
): void {
  // Longer than any pause of the benchmark, so connections are reused across cells.
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}${path}`;
    process.stdout.write(`${JSON.stringify({ ...extra, url })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

/** The one command-line argument every proxying child takes: the upstream's base URL. */
export function upstreamArgument(): URL {
  const value = process.argv[2];
  if (!value) {
    console.error('usage: <server> <upstream base URL>');
    process.exit(2);
  }
  return new URL(value);
}
