/**
 * The upstream MCP sessions this process holds, one per connection and
 * credential owner (the connection's shared credential, or one agent's
 * personal one), each opened with one credential identity (a hash of the
 * headers it carries). Initialisations of one key that overlap are
 * coalesced into one; a failed one is forgotten so the next call tries again.
 *
 * A call whose credential changed (a refreshed access token, a new sign-in,
 * a key rotated here or by the `portcullis` command) brings a new identity
 * for its key: the key's old session is replaced, not kept beside the new
 * one, so there is never more than one entry per owner however often its
 * token changes. A replaced session is retired: it is ended upstream (by
 * `retired`) once the calls still running on it are done, never under
 * them. (A call that read its credential just before it changed may bring
 * the old identity back once; its session is replaced again by the next
 * call, one extra session, never more than one entry.)
 *
 * `forget` removes a key's session only while it is still the session that
 * failed: a newer one that replaced it, another key's session, and an
 * initialisation in progress are left alone (seed 003). `forgetConnection`
 * drops them all (disconnect); `retireConnection` and `retireKey` retire
 * them (a sign-in, a sign-out, a credential set).
 */
import type { UpstreamSession } from './upstream-client.ts';

type Entry = { identity: string } & (
  | { session: UpstreamSession }
  | { opening: Promise<UpstreamSession> }
);

export class UpstreamSessions {
  readonly #entries = new Map<string, Entry>();
  /** Calls running on each session (counted by `use`). */
  readonly #uses = new Map<UpstreamSession, number>();
  /** Sessions no longer any key's, waiting for their last call to end. */
  readonly #retiring = new Set<UpstreamSession>();
  /** Ends a retired session upstream (given by whoever knows where it was opened). */
  readonly #retired: (session: UpstreamSession) => void;

  constructor(options: { retired?: (session: UpstreamSession) => void } = {}) {
    this.#retired = options.retired ?? (() => {});
  }

  /** The key's session, opened with `open` when there is none (once, however many ask at once). */
  get(key: string, open: () => Promise<UpstreamSession>, identity = ''): Promise<UpstreamSession> {
    return this.#get(key, identity, open, false);
  }

  /**
   * Like `get`, for a call that runs on the session: it counts as running
   * until `release`, and a session retired meanwhile is ended only then.
   * A new `identity` for the key replaces (and retires) the key's session.
   */
  use(
    key: string,
    identity: string,
    open: () => Promise<UpstreamSession>,
  ): Promise<UpstreamSession> {
    return this.#get(key, identity, open, true);
  }

  /** The call that `use`d the session is done with it. */
  release(session: UpstreamSession): void {
    const uses = (this.#uses.get(session) ?? 1) - 1;
    if (uses > 0) {
      this.#uses.set(session, uses);
      return;
    }
    this.#uses.delete(session);
    if (this.#retiring.delete(session)) this.#retired(session);
  }

  async #get(
    key: string,
    identity: string,
    open: () => Promise<UpstreamSession>,
    counted: boolean,
  ): Promise<UpstreamSession> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.identity !== identity) this.#replace(key, entry);
    else if (entry !== undefined) {
      if ('session' in entry) return this.#counted(entry.session, counted);
      return entry.opening.then((session) => this.#counted(session, counted));
    }
    const opening = open();
    const pending: Entry = { identity, opening };
    this.#entries.set(key, pending);
    try {
      const session = this.#counted(await opening, counted);
      if (this.#entries.get(key) === pending) this.#entries.set(key, { identity, session });
      // Replaced while it opened: it is nobody's, and goes once its callers are done.
      else this.#retire(session);
      return session;
    } catch (error) {
      if (this.#entries.get(key) === pending) this.#entries.delete(key);
      throw error;
    }
  }

  #counted(session: UpstreamSession, counted: boolean): UpstreamSession {
    if (counted) this.#uses.set(session, (this.#uses.get(session) ?? 0) + 1);
    return session;
  }

  #replace(key: string, entry: Entry): void {
    this.#entries.delete(key);
    // An opening still under way is retired by its opener once it opened.
    if ('session' in entry) this.#retire(entry.session);
  }

  /** Ends the session upstream now if no call runs on it, else after the last one. */
  #retire(session: UpstreamSession): void {
    if (this.#uses.has(session)) this.#retiring.add(session);
    else this.#retired(session);
  }

  /** Forgets the key's session if it is still `failed`; says whether it did. */
  forget(key: string, failed: UpstreamSession): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined || !('session' in entry) || entry.session !== failed) return false;
    this.#entries.delete(key);
    return true;
  }

  /**
   * Retires the key's session (its credential changed or is gone), or only
   * while it was opened with `identity` when given; says whether it did.
   */
  retireKey(key: string, identity?: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined || (identity !== undefined && entry.identity !== identity))
      return false;
    this.#replace(key, entry);
    return true;
  }

  /** Retires every session of the connection (its credential changed or is gone). */
  retireConnection(connectionId: string): void {
    for (const key of [...this.#entries.keys()])
      if (key.startsWith(`${connectionId}\0`)) this.retireKey(key);
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
    dropped.push(...this.#retiring);
    this.#retiring.clear();
    return dropped;
  }

  /** The connections holding a session or an opening. */
  connectionIds(): Set<string> {
    return new Set([...this.#entries.keys()].map((key) => ownerOfKey(key).connectionId));
  }

  /** Each key, whose it is, and the credential identity its session was opened with. */
  identities(): Array<{ key: string; connectionId: string; owner: string; identity: string }> {
    return [...this.#entries].map(([key, entry]) => ({
      key,
      ...ownerOfKey(key),
      identity: entry.identity,
    }));
  }

  /** Sessions held by a key (or opening). */
  get size(): number {
    return this.#entries.size;
  }

  /** Retired sessions still waiting for their last call. */
  get retiring(): number {
    return this.#retiring.size;
  }
}

/** The session key of a connection and whose credential its calls carry (an agent id, or '' for the shared one). */
export function sessionKey(
  connectionId: string,
  owner: string,
  wire: SessionWire = 'recorded',
): string {
  return wire === 'recorded' ? `${connectionId}\0${owner}` : `${connectionId}\0${owner}\0${wire}`;
}

/**
 * Which wire a caller's upstream session speaks: the revision the connection
 * recorded, or the 2025 wire for a 2025 caller of a server recorded at
 * 2026-07-28 (it asks mid-call and takes resource subscriptions there only).
 * A 2025 session declares its client's capabilities once, for every call in
 * it: `-tasks` is the session of callers that declared the tasks extension
 * (the server may answer their calls with tasks), apart from the others'.
 */
export type SessionWire = 'recorded' | 'legacy' | 'recorded-tasks' | 'legacy-tasks';
export const SESSION_WIRES: readonly SessionWire[] = [
  'recorded',
  'legacy',
  'recorded-tasks',
  'legacy-tasks',
];

/** What `sessionKey` put together. */
export function ownerOfKey(key: string): { connectionId: string; owner: string } {
  const [connectionId = '', owner = ''] = key.split('\0');
  return { connectionId, owner };
}
