/**
 * Hearing a remote server say its tool, prompt or resource list changed
 * (`notifications/tools/list_changed`, and the prompts' and resources') and
 * discovering it again: on a 2025 session the server's own event stream (a
 * GET in the session), on HTTP+SSE the session's stream, on 2026-07-28 a
 * `subscriptions/listen` stream for `toolsListChanged`, `promptsListChanged`
 * and `resourcesListChanged`. Each connection is refreshed at most once at a
 * time; the new list goes through review like any other change. Any other
 * notification a 2025 or HTTP+SSE session's stream carries (a subscribed
 * resource updated) is handed on as it is.
 */
import { Cancellation } from '../../base/cancellation.ts';
import type { RpcNotification } from '../wire/json-rpc.ts';
import type { UpstreamClient, UpstreamSession } from './upstream-client.ts';
import type { UpstreamTarget } from './upstream-target.ts';

const LIST_CHANGED: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);
/** What a 2026-07-28 listen stream asks for: every list change. */
const LIST_CHANGES = {
  toolsListChanged: true,
  promptsListChanged: true,
  resourcesListChanged: true,
};

export class ListChanges {
  readonly #client: UpstreamClient;
  readonly #refresh: (connectionId: string) => Promise<unknown>;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  /** What ends each listening stream, opening or open, and whose connection and session it is. */
  readonly #streams = new Map<Cancellation, { connectionId: string; session: UpstreamSession }>();
  #closed = false;

  /** Told of every other notification a session's server sends outside any call (a resource updated). */
  readonly #heard: (session: UpstreamSession, message: RpcNotification) => void;

  constructor(
    client: UpstreamClient,
    refresh: (connectionId: string) => Promise<unknown>,
    heard: (session: UpstreamSession, message: RpcNotification) => void = () => {},
  ) {
    this.#client = client;
    this.#refresh = refresh;
    this.#heard = heard;
  }

  /** Listens on a session just opened for the connection. */
  listen(connectionId: string, target: UpstreamTarget, session: UpstreamSession): void {
    const hear = (message: RpcNotification) => {
      if (LIST_CHANGED.has(message.method)) this.changed(connectionId);
      else this.#heard(session, message);
    };
    if (session.era === 'sse') {
      session.channel.onServerNotification = hear;
      return;
    }
    if (this.#closed) return;
    const ending = new Cancellation();
    this.#streams.set(ending, { connectionId, session });
    void this.#client
      .listen(target, session, LIST_CHANGES, { cancel: ending, onNotification: hear })
      .finally(() => this.#streams.delete(ending));
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
}
