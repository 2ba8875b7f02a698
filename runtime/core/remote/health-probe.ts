/**
 * A remote connection whose health reached `error` is probed again in the
 * background, with backoff (10 s, doubling to 10 min), until it answers; an
 * answer marks it ok, so it recovers by itself and is never locked until a
 * person reconnects it. One check of the store every interval finds the
 * connections in error; each has its own next attempt. The same round
 * discovers again the tool list of a connection whose `ttlMs` ran out.
 */
import type { Connection } from '../governance/model.ts';
import type { Store } from '../store/store.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';
import { openSession } from './open-session.ts';
import { upstreamTarget } from './remote-mcp-executor.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from './remote-model.ts';
import type { UpstreamClient } from './upstream-client.ts';

export interface HealthProbeOptions {
  store: Store;
  vault: CredentialVault;
  client: UpstreamClient;
  now?: () => Date;
  /** How often the store is checked for connections in error. Default 10 s. */
  intervalMs?: number;
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  report?: (error: unknown) => void;
  /** Discovers a connection's tools again (its list's `ttlMs` ran out). */
  refresh?: (connection: Connection, endpoint: RemoteEndpoint) => Promise<unknown>;
}

export class RemoteHealthProbe {
  readonly #options: HealthProbeOptions;
  readonly #next = new Map<string, { at: number; backoffMs: number }>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(options: HealthProbeOptions) {
    this.#options = options;
  }

  start(): void {
    this.#timer ??= setInterval(() => {
      this.#running ??= this.check().finally(() => {
        this.#running = undefined;
      });
    }, this.#options.intervalMs ?? 10_000).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One round: every remote connection in error whose attempt is due is probed. */
  async check(): Promise<void> {
    const { store } = this.#options;
    const now = (this.#options.now ?? (() => new Date()))().getTime();
    const inError = (await store.connections.all()).filter(
      (c) => c.provider === REMOTE_MCP_PROVIDER && c.status === 'active' && c.health === 'error',
    );
    await this.#refreshExpired(now);
    const ids = new Set(inError.map((c) => c.id));
    for (const id of this.#next.keys()) if (!ids.has(id)) this.#next.delete(id);
    for (const connection of inError) {
      const first = this.#options.firstBackoffMs ?? 10_000;
      const due = this.#next.get(connection.id) ?? { at: now, backoffMs: first };
      if (due.at > now) continue;
      const ok = await this.#probe(connection);
      if (ok) {
        this.#next.delete(connection.id);
        await store.connections.recordHealth(connection.id, 'ok', 0, new Date(now).toISOString());
      } else {
        const backoffMs = Math.min(due.backoffMs * 2, this.#options.maxBackoffMs ?? 600_000);
        this.#next.set(connection.id, { at: now + due.backoffMs, backoffMs });
      }
    }
  }

  async #refreshExpired(now: number): Promise<void> {
    const { store, refresh } = this.#options;
    if (!refresh) return;
    const stale = (await store.remoteEndpoints.all()).filter(
      (e) => e.draft === null && e.toolsExpireAt !== null && Date.parse(e.toolsExpireAt) <= now,
    );
    if (stale.length === 0) return;
    const connections = new Map((await store.connections.all()).map((c) => [c.id, c]));
    for (const endpoint of stale) {
      const connection = connections.get(endpoint.connectionId);
      if (connection?.status !== 'active' || connection.health === 'error') continue;
      await refresh(connection, endpoint).catch((error: unknown) => this.#options.report?.(error));
    }
  }

  async #probe(connection: Connection): Promise<boolean> {
    const { store, vault, client } = this.#options;
    try {
      const endpoint = await store.remoteEndpoints.byConnection(connection.id);
      if (!endpoint || endpoint.draft !== null) return false;
      const credential = vault.open(await store.credentials.forConnection(connection.id, null));
      const target = upstreamTarget(endpoint, credential);
      if (endpoint.revision === '2026-07-28') return (await client.discover(target)) !== undefined;
      const session = await openSession(client, target, endpoint);
      await client.close(target, session).catch(() => {});
      return true;
    } catch (error) {
      this.#options.report?.(error);
      return false;
    }
  }
}
