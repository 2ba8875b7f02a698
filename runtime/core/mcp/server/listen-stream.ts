/**
 * A stream a client listens on for what the server announces (the legacy
 * standalone GET stream, a 2026-07-28 `subscriptions/listen`): kept open by a
 * comment every 25 s for idle proxies and, when asked, telling of changes to
 * the tools the principal sees until it closes.
 */
import { EventStream } from '../wire/event-stream.ts';
import type { McpPrincipal, ToolBackend } from './tool-backend.ts';

const KEEP_ALIVE_MS = 25_000;

export function listenStream<P extends McpPrincipal>(
  backend: ToolBackend<P>,
  principal: P,
  /** The notification a change is announced with; undefined: changes are not announced. */
  toolsChanged: (() => unknown) | undefined,
): EventStream {
  const stream = new EventStream();
  const keepAlive = setInterval(() => stream.comment(), KEEP_ALIVE_MS);
  keepAlive.unref();
  const unwatch =
    toolsChanged && backend.watchTools?.(principal, () => stream.send(toolsChanged()));
  stream.onClose(() => {
    clearInterval(keepAlive);
    unwatch?.();
  });
  return stream;
}
