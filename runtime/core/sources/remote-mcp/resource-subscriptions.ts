/**
 * Resource subscriptions made upstream, one per session key (a connection
 * and whose credential) and URI however many agents of that session ask for
 * it, undone when the last of them lets go. On a 2025 or HTTP+SSE session it
 * is `resources/subscribe` (its updates come on the session's own stream,
 * handed here by `heard`), on 2026-07-28 a `subscriptions/listen` stream
 * with that URI in `resourceSubscriptions`, subscribed once it is
 * acknowledged. A session replaced (its credential changed, the server
 * forgot it) has its subscriptions made again on the new one, and a session
 * ended takes its subscriptions with it: nothing is left subscribed upstream
 * that no agent holds.
 */
import { awaitAnswer, Cancellation, NEVER_CANCELLED } from '../../base/cancellation.ts';
import { GatewayError } from '../../base/errors.ts';
import type { UpstreamClient, UpstreamSession } from '../../mcp/client/upstream-client.ts';
import { ownerOfKey } from '../../mcp/client/upstream-sessions.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { RpcNotification } from '../../mcp/wire/json-rpc.ts';

const UPDATED = 'notifications/resources/updated';
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
/** How long a 2026-07-28 server may take to acknowledge a subscription. */
const ACK_WAIT_MS = 15_000;

/** Told of each URI the server says was updated. */
export type UpdateListener = (uri: string) => void;

interface Entry {
  key: string;
  uri: string;
  target: UpstreamTarget;
  /** The session it is subscribed in; undefined once that one ended (until the key's next). */
  session: UpstreamSession | undefined;
  listeners: Set<UpdateListener>;
  /** Settles when the subscription is made upstream (or failed to be). */
  ready: Promise<void>;
  /** Ends a 2026-07-28 subscription's stream. */
  stream: Cancellation | undefined;
}

export class ResourceSubscriptions {
  readonly #client: UpstreamClient;
  readonly #entries = new Map<string, Entry>();

  constructor(client: UpstreamClient) {
    this.#client = client;
  }

  /**
   * Subscribes `listener` to `uri` in the key's session (made upstream
   * unless another listener holds it already); resolves, once it is made,
   * with what lets go of it.
   */
  async add(
    key: string,
    target: UpstreamTarget,
    session: UpstreamSession,
    uri: string,
    listener: UpdateListener,
  ): Promise<() => Promise<void>> {
    const id = `${key}\0${uri}`;
    let entry = this.#entries.get(id);
    if (entry === undefined) {
      entry = {
        key,
        uri,
        target,
        session,
        listeners: new Set(),
        ready: Promise.resolve(),
        stream: undefined,
      };
      entry.ready = this.#subscribe(entry);
      this.#entries.set(id, entry);
    } else if (entry.session !== session) this.#move(entry, target, session);
    const held = entry;
    held.listeners.add(listener);
    try {
      await held.ready;
    } catch (error) {
      await this.#letGo(id, held, listener);
      throw error;
    }
    let gone = false;
    return async () => {
      if (gone) return;
      gone = true;
      await this.#letGo(id, held, listener);
    };
  }

  /** A notification a session's server sent on its own stream: an update reaches that session's listeners. */
  heard(session: UpstreamSession, message: RpcNotification): void {
    if (message.method !== UPDATED) return;
    const uri = message.params?.uri;
    if (typeof uri !== 'string') return;
    for (const entry of this.#entries.values()) if (entry.session === session) deliver(entry, uri);
  }

  /** A session opened for `key`: the key's subscriptions are made again in it. */
  opened(key: string, target: UpstreamTarget, session: UpstreamSession): void {
    for (const entry of this.#entries.values())
      if (entry.key === key && entry.session !== session) this.#move(entry, target, session);
  }

  /** A session ended (retired, forgotten, closed): its subscriptions end with it. */
  ended(session: UpstreamSession): void {
    for (const entry of this.#entries.values())
      if (entry.session === session) {
        entry.stream?.cancel();
        entry.stream = undefined;
        entry.session = undefined;
      }
  }

  /** The connection's sessions were all forgotten (it was disconnected): their subscriptions end. */
  endConnection(connectionId: string): void {
    for (const entry of this.#entries.values())
      if (ownerOfKey(entry.key).connectionId === connectionId && entry.session)
        this.ended(entry.session);
  }

  /** Ends every subscription's stream (the gateway closing). */
  close(): void {
    for (const entry of this.#entries.values()) entry.stream?.cancel();
    this.#entries.clear();
  }

  /** Subscriptions held upstream (tests). */
  get size(): number {
    return this.#entries.size;
  }

  #move(entry: Entry, target: UpstreamTarget, session: UpstreamSession): void {
    entry.stream?.cancel();
    entry.stream = undefined;
    entry.target = target;
    entry.session = session;
    entry.ready = this.#subscribe(entry);
    // Made again in the background: a failure leaves the agents as a server that sends nothing would.
    entry.ready.catch(() => {});
  }

  async #letGo(id: string, entry: Entry, listener: UpdateListener): Promise<void> {
    entry.listeners.delete(listener);
    if (entry.listeners.size > 0 || this.#entries.get(id) !== entry) return;
    this.#entries.delete(id);
    entry.stream?.cancel();
    entry.stream = undefined;
    const { session, target, uri } = entry;
    if (session === undefined || session.era === 'modern') return;
    await this.#client
      .request(target, session, 'resources/unsubscribe', { uri })
      .then(() => {})
      .catch(() => {});
  }

  /** Makes the subscription upstream in the entry's session. */
  async #subscribe(entry: Entry): Promise<void> {
    const { session, target, uri } = entry;
    if (session === undefined) return;
    if (session.era !== 'modern') {
      await this.#client.request(target, session, 'resources/subscribe', { uri });
      return;
    }
    const stream = new Cancellation();
    entry.stream = stream;
    let acknowledged = false;
    await awaitAnswer<void>({
      cancel: NEVER_CANCELLED,
      timeoutMs: ACK_WAIT_MS,
      timeout: () => {
        stream.cancel();
        return new GatewayError(
          'upstream_timeout',
          'the remote MCP server did not acknowledge the subscription',
        );
      },
      done: () => {},
      listen: (resolve, reject) => {
        void this.#client
          .listen(
            target,
            session,
            { resourceSubscriptions: [uri] },
            {
              cancel: stream,
              onNotification: (message) => {
                if (message.method === ACKNOWLEDGED && !acknowledged) {
                  acknowledged = true;
                  const honoured = (
                    message.params?.notifications as { resourceSubscriptions?: unknown }
                  )?.resourceSubscriptions;
                  if (Array.isArray(honoured) && honoured.includes(uri)) resolve();
                  else {
                    stream.cancel();
                    reject(
                      new GatewayError(
                        'mcp_remote_error',
                        'the remote MCP server did not take the subscription to this resource',
                      ),
                    );
                  }
                } else if (message.method === UPDATED && acknowledged) {
                  const updated = message.params?.uri;
                  if (typeof updated === 'string') deliver(entry, updated);
                }
              },
            },
          )
          .finally(() =>
            reject(
              new GatewayError(
                'upstream_unreachable',
                'the remote MCP server ended the subscription stream before acknowledging it',
              ),
            ),
          );
      },
    });
  }
}

/** An update for `uri` to the entry's listeners, when it names the entry's resource or one inside it. */
function deliver(entry: Entry, uri: string): void {
  if (!covers(entry.uri, uri)) return;
  for (const listener of [...entry.listeners]) {
    try {
      listener(uri);
    } catch {
      // One listener that fails stops none of the others.
    }
  }
}

/** The updated URI is the subscribed one, or a sub-resource of it (the spec allows either). */
function covers(subscribed: string, updated: string): boolean {
  if (updated === subscribed) return true;
  if (!updated.startsWith(subscribed)) return false;
  return subscribed.endsWith('/') || '/?#'.includes(updated.charAt(subscribed.length));
}
