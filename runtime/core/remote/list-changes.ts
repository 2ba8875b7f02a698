/**
 * Hearing a remote server say its tool, prompt or resource list changed
 * (`notifications/tools/list_changed`, and the prompts' and resources') and
 * discovering it again: on a 2025 session the server's own event stream (a
 * GET in the session), on HTTP+SSE the session's stream, on 2026-07-28 a
 * `subscriptions/listen` stream for `toolsListChanged`,
 * `promptsListChanged` and `resourcesListChanged`. Each connection is refreshed at most once at a time;
 * the new list goes through review like any other change.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { Cancellation } from '../cancellation.ts';
import type { GuardedClient } from '../outbound/guarded-client.ts';
import { EventStreamReader } from './event-stream-reader.ts';
import { classify, parseJson } from './mcp-reply.ts';
import type { UpstreamSession, UpstreamTarget } from './upstream-client.ts';

const LIST_CHANGED: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);
/** How long a session's listening stream may stay open. */
const LISTEN_LIFETIME_MS = 24 * 3_600_000;

export class ListChanges {
  readonly #http: GuardedClient;
  readonly #refresh: (connectionId: string) => Promise<unknown>;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  /** What ends each listening stream, opening or open, and whose connection and session it is. */
  readonly #streams = new Map<Cancellation, { connectionId: string; session: UpstreamSession }>();
  #closed = false;

  constructor(http: GuardedClient, refresh: (connectionId: string) => Promise<unknown>) {
    this.#http = http;
    this.#refresh = refresh;
  }

  /** Listens on a session just opened for the connection. */
  listen(connectionId: string, target: UpstreamTarget, session: UpstreamSession): void {
    if (session.era === 'sse') {
      session.channel.onServerNotification = (method) => {
        if (LIST_CHANGED.has(method)) this.changed(connectionId);
      };
      return;
    }
    if (session.era === 'modern') {
      void this.#listenOn(connectionId, session, target, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': session.revision,
          'mcp-method': 'subscriptions/listen',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'portcullis-listen',
          method: 'subscriptions/listen',
          params: {
            notifications: {
              toolsListChanged: true,
              promptsListChanged: true,
              resourcesListChanged: true,
            },
            _meta: {
              [PROTOCOL_VERSION_META_KEY]: session.revision,
              [CLIENT_CAPABILITIES_META_KEY]: {},
              [CLIENT_INFO_META_KEY]: { name: 'portcullis', version: '0.1.0' },
            },
          },
        }),
      });
      return;
    }
    if (session.era !== 'legacy' || session.sessionId === undefined) return;
    void this.#listenOn(connectionId, session, target, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session.sessionId,
        'mcp-protocol-version': session.revision,
      },
    });
  }

  /** The connection's list changed: refresh it (once more after a refresh under way). */
  changed(connectionId: string): void {
    if (this.#running.has(connectionId)) {
      this.#again.add(connectionId);
      return;
    }
    const run = this.#refresh(connectionId)
      .catch(() => {})
      .then(() => {
        this.#running.delete(connectionId);
        if (this.#again.delete(connectionId)) this.changed(connectionId);
      });
    this.#running.set(connectionId, run);
  }

  /** Waits for the refreshes under way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  close(): void {
    this.#closed = true;
    for (const stream of this.#streams.keys()) stream.cancel();
    this.#streams.clear();
  }

  /** Ends the connection's listening streams (its sessions were forgotten). */
  stop(connectionId: string): void {
    for (const [stream, owner] of this.#streams)
      if (owner.connectionId === connectionId) {
        stream.cancel();
        this.#streams.delete(stream);
      }
  }

  /** Ends one session's listening stream (the session was retired: its credential changed). */
  stopSession(session: UpstreamSession): void {
    for (const [stream, owner] of this.#streams)
      if (owner.session === session) {
        stream.cancel();
        this.#streams.delete(stream);
      }
  }

  /** Reads a listening stream (a 2025 session's GET, a 2026-07-28 listen POST) while it lasts. */
  async #listenOn(
    connectionId: string,
    session: UpstreamSession,
    target: UpstreamTarget,
    request: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  ): Promise<void> {
    if (this.#closed) return;
    const ending = new Cancellation();
    this.#streams.set(ending, { connectionId, session });
    try {
      const stream = await this.#http.open(
        {
          method: request.method,
          url: target.url,
          headers: { ...target.headers, ...request.headers },
          ...(request.body === undefined ? {} : { body: request.body }),
          redactor: target.redactor,
        },
        { maxReplyBytes: 64 * 1_048_576, deadlineMs: LISTEN_LIFETIME_MS, cancel: ending },
      );
      if (stream.status !== 200) {
        stream.close();
        return;
      }
      const reader = new EventStreamReader();
      try {
        for await (const chunk of stream.chunks)
          for (const data of reader.push(chunk)) {
            try {
              const parsed = classify(parseJson(data));
              if (parsed.kind === 'notification' && LIST_CHANGED.has(parsed.message.method))
                this.changed(connectionId);
            } catch {
              // One bad event says nothing about the list.
            }
          }
      } finally {
        stream.close();
      }
    } catch {
      // A server without a listening stream (405) or a stream that ended: nothing to hear.
    } finally {
      this.#streams.delete(ending);
    }
  }
}
