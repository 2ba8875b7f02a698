/**
 * Where each upstream session this process opened for calls was opened, so
 * one retired (its credential changed, no call runs on it any more) is
 * ended there: its resource subscriptions end with it, whoever listens on it
 * is told, and the server hears it closed (a 2025 session's DELETE, an
 * HTTP+SSE stream closed).
 */
import type { UpstreamClient, UpstreamSession } from '../../mcp/client/upstream-client.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { ResourceSubscriptions } from './resource-subscriptions.ts';

export interface OpenedSessionsOptions {
  client: UpstreamClient;
  /** The subscriptions made in the sessions, ended with each. */
  subscriptions: ResourceSubscriptions;
  /** Told of each session retired here as it is ended (its listening stream ends too). */
  ended?: (session: UpstreamSession) => void;
}

export class OpenedSessions {
  readonly #options: OpenedSessionsOptions;
  readonly #openedAt = new WeakMap<UpstreamSession, UpstreamTarget>();

  constructor(options: OpenedSessionsOptions) {
    this.#options = options;
  }

  /** Records where `session` was opened. */
  opened(session: UpstreamSession, target: UpstreamTarget): void {
    this.#openedAt.set(session, target);
  }

  /** A session no call of this process uses any more: ended upstream (one not opened here is left alone). */
  retired(session: UpstreamSession): void {
    if (this.#openedAt.has(session)) void this.end(session);
  }

  /**
   * Ends `session` upstream and resolves once the server has heard it (the
   * gateway closing); an HTTP+SSE stream not opened here is closed all the
   * same. Never rejects: a server that cannot be told is left to expire it.
   */
  async end(session: UpstreamSession): Promise<void> {
    const target = this.#openedAt.get(session);
    if (target === undefined) {
      if (session.era === 'sse') session.channel.close();
      return;
    }
    this.#options.subscriptions.ended(session);
    this.#options.ended?.(session);
    await this.#options.client.close(target, session).catch(() => {});
  }
}
