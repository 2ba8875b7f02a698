/**
 * Forgets the upstream sessions of connections that are gone, whoever removed
 * them: this process, the `portcullis disconnect` command or another replica;
 * and retires the sessions whose credential changed the same way (a key or
 * headers rotated by `portcullis credential set`), so the old session is
 * ended with the old credential and the next call opens one with the new.
 * A removal moves the store's revision (the path grants and policies take to
 * a running server); while this process holds upstream sessions, this
 * listens to the revision watch (its one check twice a second, shared with
 * the tool list watch and requests) and each session of a connection no
 * longer in the store is forgotten and
 * ended upstream (a 2025 session's DELETE, an HTTP+SSE stream closed), so the
 * agent's next call finds no connection and no session is left open.
 */

import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { UpstreamClient, UpstreamSession } from '../mcp/client/upstream-client.ts';
import type { UpstreamSessions } from '../mcp/client/upstream-sessions.ts';
import type { UpstreamTarget } from '../mcp/client/upstream-target.ts';
import type { CurrentIdentity } from '../sources/remote-mcp/held-credentials.ts';
import { MEMBER_OWNER } from '../sources/remote-mcp/signed-in-credential.ts';
import type { RevisionWatch } from './revision-watch.ts';

export interface SessionSweepOptions {
  revisions: RevisionWatch;
  sessions: UpstreamSessions;
  client: UpstreamClient;
  /** Told of a connection whose sessions were forgotten (its listening streams end). */
  forgotten?: (connectionId: string) => void;
  /** Told about a failed sweep (the operator's log); the next one tries again. */
  report?: (error: unknown) => void;
  /** The identity each owner's calls carry now; a session opened with another one is retired. */
  currentIdentity?: CurrentIdentity;
}

/** What was held before the snapshot was read. */
interface Held {
  holding: ReturnType<UpstreamSessions['connectionIds']>;
  identities: ReturnType<UpstreamSessions['identities']>;
}

export class UpstreamSessionSweep {
  readonly #options: SessionSweepOptions;
  /** Where each session was opened, to end it there once its connection is gone. */
  readonly #targets = new WeakMap<UpstreamSession, UpstreamTarget>();
  #unlisten: (() => void) | undefined;
  #revision: number | undefined;
  #held: Held | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: SessionSweepOptions) {
    this.#options = options;
  }

  /** Records where a session was opened. */
  opened(session: UpstreamSession, target: UpstreamTarget): void {
    this.#targets.set(session, target);
  }

  start(): void {
    this.#unlisten ??= this.#options.revisions.listen({
      beforeCheck: () => this.#beforeCheck(),
      checked: (snapshot) => this.#checked(snapshot),
    });
  }

  stop(): Promise<void> {
    this.#unlisten?.();
    this.#unlisten = undefined;
    return this.#sweeping ?? Promise.resolve();
  }

  /**
   * Nothing to check while no session is held, or while a sweep still runs.
   * Read before the revision: every connection listed existed before the
   * snapshot's revision, so one missing from it was removed (ids are never reused).
   */
  #beforeCheck(): boolean {
    const { sessions } = this.#options;
    if (this.#sweeping !== undefined || sessions.size === 0) return false;
    this.#held = { holding: sessions.connectionIds(), identities: sessions.identities() };
    return true;
  }

  #checked(snapshot: GovernanceSnapshot): void {
    const held = this.#held;
    this.#held = undefined;
    if (held === undefined || this.#sweeping !== undefined) return;
    if (snapshot.revision === this.#revision) return;
    this.#revision = snapshot.revision;
    this.#sweeping = this.#sweep(snapshot, held)
      .catch((error: unknown) => this.#options.report?.(error))
      .finally(() => {
        this.#sweeping = undefined;
      });
  }

  async #sweep(snapshot: GovernanceSnapshot, { holding, identities }: Held): Promise<void> {
    const { sessions, client } = this.#options;
    for (const connectionId of holding) {
      if (snapshot.hasConnection(connectionId)) continue;
      const dropped = sessions.forgetConnection(connectionId);
      this.#options.forgotten?.(connectionId);
      await Promise.allSettled(
        dropped.map((session) => {
          const target = this.#targets.get(session);
          if (target) return client.close(target, session);
          return session.era === 'sse' ? session.channel.close() : undefined;
        }),
      );
    }
    await this.#retireChanged(identities, (id) => snapshot.hasConnection(id));
  }

  /** Retires each held session whose owner's credential is no longer the one it opened with. */
  async #retireChanged(
    held: ReturnType<UpstreamSessions['identities']>,
    exists: (connectionId: string) => boolean,
  ): Promise<void> {
    const { currentIdentity, sessions } = this.#options;
    if (!currentIdentity) return;
    for (const { key, connectionId, owner, identity } of held) {
      if (!exists(connectionId)) continue;
      // A member's session carries their exchanged token, which a call replaces as it is exchanged again.
      if (owner.startsWith(MEMBER_OWNER)) continue;
      const now = await currentIdentity(connectionId, owner === '' ? null : owner);
      // Only while the key still holds that identity: a call may have replaced it meanwhile.
      if (now !== identity) sessions.retireKey(key, identity);
    }
  }
}
