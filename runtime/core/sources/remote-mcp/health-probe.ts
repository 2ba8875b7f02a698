/**
 * A remote connection whose health reached `degraded` or `error` is probed
 * again in the background, with backoff (10 s, doubling to 10 min), until it
 * answers; an answer marks it ok, so it recovers by itself and is never
 * locked until a person reconnects it. One check of the store every interval
 * finds those connections; each has its own next attempt. The same round
 * discovers again the tool list of a connection whose `ttlMs` ran out.
 *
 * The probe carries what the connection's shared calls carry
 * (`withCredential`, the executor's own way): its key or headers, or for a
 * signed-in connection its access token, refreshed ahead of expiry and once
 * after a 401 through the one single-flight refresh. A 401 after that puts
 * the credential in `sign_in_required`, and from then on the connection is
 * not probed at all (nothing is sent, no refresh is tried: a store read each
 * round) until a person signs in; `portcullis connections` shows the state.
 * A signed-in connection whose shared credential was never signed in (or
 * was signed out), its agents using their own, is probed bare: a 401 that
 * carries a Bearer challenge means the server is there, so it counts as an
 * answer.
 */
import { GatewayError } from '../../base/errors.ts';
import { parseBearerChallenge } from '../../identity/oauth-client/upstream-oauth.ts';
import type { UpstreamTokens } from '../../identity/oauth-client/upstream-tokens.ts';
import type { UpstreamClient } from '../../mcp/client/upstream-client.ts';
import { MODERN_VERSION } from '../../mcp/wire/protocol-version.ts';
import type { Connection } from '../../model/governance.ts';
import { REMOTE_MCP_PROVIDER, type RemoteEndpoint } from '../../model/remote.ts';
import type { Store } from '../../ports/store.ts';
import type { CredentialVault } from '../../vault/credential-vault.ts';
import { openSession } from './open-session.ts';
import { withCredential } from './signed-in-credential.ts';
import { upstreamTarget } from './upstream-targets.ts';

/** What one probe found: the server answered, it did not, or a person must sign in first. */
type ProbeOutcome = 'answered' | 'unanswered' | 'sign_in_required';

export interface HealthProbeOptions {
  store: Store;
  vault: CredentialVault;
  client: UpstreamClient;
  /** The access tokens of signed-in (`oauth`) connections, the executor's; without it they are probed bare. */
  tokens?: UpstreamTokens | undefined;
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

  /** One round: every remote connection degraded or in error whose attempt is due is probed. */
  async check(): Promise<void> {
    const { store } = this.#options;
    const now = (this.#options.now ?? (() => new Date()))().getTime();
    const inError = (await store.connections.all()).filter(
      (c) =>
        c.provider === REMOTE_MCP_PROVIDER &&
        c.status === 'active' &&
        (c.health === 'error' || c.health === 'degraded'),
    );
    await this.#refreshExpired(now);
    const ids = new Set(inError.map((c) => c.id));
    for (const id of this.#next.keys()) if (!ids.has(id)) this.#next.delete(id);
    for (const connection of inError) {
      const first = this.#options.firstBackoffMs ?? 10_000;
      const due = this.#next.get(connection.id) ?? { at: now, backoffMs: first };
      if (due.at > now) continue;
      const outcome = await this.#probe(connection);
      if (outcome === 'answered') {
        this.#next.delete(connection.id);
        await store.connections.recordHealth(connection.id, 'ok', 0, new Date(now).toISOString());
      } else if (outcome === 'sign_in_required') {
        // Nothing is sent until a person signs in; then the next round probes again.
        this.#next.set(connection.id, { at: now + first, backoffMs: first });
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

  async #probe(connection: Connection): Promise<ProbeOutcome> {
    const { store, vault, tokens } = this.#options;
    try {
      const endpoint = await store.remoteEndpoints.byConnection(connection.id);
      if (!endpoint || endpoint.draft !== null) return 'unanswered';
      if (endpoint.authKind === 'oauth' && tokens) {
        const row = await store.upstreamOAuth.tokens.get(connection.id, null);
        const refused = row?.signInRequired;
        if (refused !== undefined && refused !== null && refused !== 'signed_out')
          return 'sign_in_required';
        // No shared sign-in (its agents sign in themselves): is the server there at all?
        if (row?.sealed === undefined || row.sealed === null)
          return (await this.#reach(endpoint, undefined).catch(challenged))
            ? 'answered'
            : 'unanswered';
        const holder = { connection, endpoint, credential: undefined, agentId: null };
        const answered = await withCredential(tokens, holder, (credential) =>
          this.#reach(endpoint, credential),
        );
        return answered ? 'answered' : 'unanswered';
      }
      const credential = vault.open(await store.credentials.forConnection(connection.id, null));
      return (await this.#reach(endpoint, credential)) ? 'answered' : 'unanswered';
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'oauth_sign_in_required')
        return 'sign_in_required';
      this.#options.report?.(error);
      return 'unanswered';
    }
  }

  /** Whether the server answers as MCP (a 2025 session is opened and ended again). */
  async #reach(
    endpoint: RemoteEndpoint,
    credential: Record<string, string> | undefined,
  ): Promise<boolean> {
    const { client } = this.#options;
    const target = upstreamTarget(endpoint, credential);
    if (endpoint.revision === MODERN_VERSION) return (await client.discover(target)) !== undefined;
    const session = await openSession(client, target, endpoint);
    await client.close(target, session).catch(() => {});
    return true;
  }
}

/** A bare probe's 401 with a Bearer challenge: the server is there, asking for a sign-in. */
function challenged(error: unknown): boolean {
  if (
    error instanceof GatewayError &&
    error.code === 'mcp_remote_status' &&
    error.detail?.status === 401 &&
    typeof error.detail.challenge === 'string' &&
    parseBearerChallenge(error.detail.challenge) !== undefined
  )
    return true;
  throw error;
}
