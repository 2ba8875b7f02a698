/**
 * The upstream MCP sessions this process holds, one per connection and
 * credential identity (two agents with personal keys get two sessions; agents
 * sharing the connection's credential share one). Initialisations of one key
 * that overlap are coalesced into one; a failed one is forgotten so the next
 * call tries again.
 *
 * `forget` removes a key's session only while it is still the session that
 * failed: a newer one that replaced it, another key's session, and an
 * initialisation in progress are left alone (seed 003). `forgetConnection`
 * drops them all (disconnect, credential change).
 */
import type { UpstreamSession } from './upstream-client.ts';

type Entry = { session: UpstreamSession } | { opening: Promise<UpstreamSession> };

export class UpstreamSessions {
  readonly #entries = new Map<string, Entry>();

  /** The key's session, opened with `open` when there is none (once, however many ask at once). */
  async get(key: string, open: () => Promise<UpstreamSession>): Promise<UpstreamSession> {
    const entry = this.#entries.get(key);
    if (entry !== undefined) return 'session' in entry ? entry.session : entry.opening;
    const opening = open();
    const pending: Entry = { opening };
    this.#entries.set(key, pending);
    try {
      const session = await opening;
      if (this.#entries.get(key) === pending) this.#entries.set(key, { session });
      return session;
    } catch (error) {
      if (this.#entries.get(key) === pending) this.#entries.delete(key);
      throw error;
    }
  }

  /** Forgets the key's session if it is still `failed`; says whether it did. */
  forget(key: string, failed: UpstreamSession): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined || !('session' in entry) || entry.session !== failed) return false;
    this.#entries.delete(key);
    return true;
  }

  /** Every session of the connection, forgotten; returns them (to be closed upstream). */
  forgetConnection(connectionId: string): UpstreamSession[] {
    const dropped: UpstreamSession[] = [];
    for (const [key, entry] of this.#entries) {
      if (!key.startsWith(`${connectionId}\0`)) continue;
      if ('session' in entry) dropped.push(entry.session);
      this.#entries.delete(key);
    }
    return dropped;
  }

  /** Every session, forgotten (the gateway closing). */
  forgetAll(): UpstreamSession[] {
    const dropped = [...this.#entries.values()].flatMap((entry) =>
      'session' in entry ? [entry.session] : [],
    );
    this.#entries.clear();
    return dropped;
  }

  /** The connections holding a session or an opening. */
  connectionIds(): Set<string> {
    return new Set([...this.#entries.keys()].map((key) => key.slice(0, key.indexOf('\0'))));
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** The session key of a connection and the credential its calls carry (a hash, never the values). */
export function sessionKey(connectionId: string, credentialIdentity: string): string {
  return `${connectionId}\0${credentialIdentity}`;
}
