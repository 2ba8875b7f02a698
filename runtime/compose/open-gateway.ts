/**
 * The gateway's composition root: configuration in, the parts every surface
 * uses out (the MCP tool backend, the operator verbs' context, the store),
 * with the start-up checks done. The HTTP server, the `portcullis` command,
 * the tests and the benchmark all open the gateway through here. It lives
 * outside `runtime/core`, which never imports an adapter (the store, Redis).
 */
import { join } from 'node:path';
import { openStore } from '../adapters/sql/open-store.ts';
import type { Config } from '../config/config.ts';
import { ensureDataDir } from '../config/data-dir.ts';
import {
  CatalogSet,
  generatedProviderFiles,
  type ProviderFiles,
} from '../core/catalog/catalog-set.ts';
import { generatedRemoteFiles } from '../core/catalog/curated-remotes.ts';
import { toolNameCollisionError } from '../core/governance/tool-names.ts';
import type { ToolSources } from '../core/governance/tool-source.ts';
import { signInNeeded } from '../core/identity/oauth-client/sign-in-needed.ts';
import { UpstreamSignIn } from '../core/identity/oauth-client/upstream-sign-in.ts';
import { UpstreamTokens } from '../core/identity/oauth-client/upstream-tokens.ts';
import { AuthorizationServer } from '../core/identity/oauth-server/authorization-server.ts';
import { AgentKeys } from '../core/identity/principals/agent-keys.ts';
import { Principals } from '../core/identity/principals/principals.ts';
import { ListChanges } from '../core/mcp/client/list-changes.ts';
import { RequestStateSealer } from '../core/mcp/server/request-state.ts';
import type { OperatorContext } from '../core/operator/context.ts';
import { refreshConnection } from '../core/operator/remote-refresh.ts';
import { createGuardedClient, type GuardedClient } from '../core/outbound/guarded-client.ts';
import { AuditLog } from '../core/pipeline/audit-log.ts';
import { type BootstrapReport, bootstrap, firstAdminToken } from '../core/pipeline/bootstrap.ts';
import { GatewayToolSources } from '../core/pipeline/gateway-tool-sources.ts';
import { GovernanceCache } from '../core/pipeline/governance-cache.ts';
import { GovernedTools } from '../core/pipeline/governed-tools.ts';
import { RevisionWatch } from '../core/pipeline/revision-watch.ts';
import { UpstreamSessionSweep } from '../core/pipeline/session-sweep.ts';
import { ToolWatch } from '../core/pipeline/tool-watch.ts';
import type { SharedState } from '../core/ports/shared-state/shared-state.ts';
import type { Store } from '../core/ports/store.ts';
import { Executors } from '../core/sources/executor.ts';
import { catalogToolSources } from '../core/sources/native-rest/catalog-tool-source.ts';
import { NativeRestExecutor } from '../core/sources/native-rest/native-rest-executor.ts';
import { upstreamOverride } from '../core/sources/native-rest/upstream-override.ts';
import { RemoteHealthProbe } from '../core/sources/remote-mcp/health-probe.ts';
import { storedCredentialIdentity } from '../core/sources/remote-mcp/held-credentials.ts';
import { HeldExchangeRelay } from '../core/sources/remote-mcp/held-exchange-relay.ts';
import { createRemoteMcp } from '../core/sources/remote-mcp/remote-mcp.ts';
import type { Forwarded } from '../core/sources/remote-mcp/remote-mcp-executor.ts';
import { CredentialVault } from '../core/vault/credential-vault.ts';
import { loadKeyring, reloadKeyring } from '../core/vault/key-file.ts';
import { openSharedState } from './open-shared-state.ts';

export interface OpenGatewayOptions {
  config: Config;
  /**
   * The catalogs to serve: the compiled `generated/` folder (its URL, since a
   * bundled entry point sits elsewhere than the sources), or explicit files.
   */
  catalogs: URL | readonly ProviderFiles[];
  now?: () => Date;
  /**
   * The authorization server's issuer when `PORTCULLIS_PUBLIC_URL` is unset:
   * the address the server listens on (the HTTP server knows it once it listens).
   */
  listenUrl?: string;
  /** Told about failures no caller sees (the operator's log). */
  onInternalError?: (error: unknown, context?: { tool: string; traceparent?: string }) => void;
}

/** The SQLite store's file in the data folder. */
export const SQLITE_FILE = 'portcullis.sqlite';

export interface Gateway {
  readonly config: Config;
  readonly store: Store;
  readonly catalogs: CatalogSet;
  readonly toolSources: ToolSources;
  readonly vault: CredentialVault;
  /** Ephemeral state every replica shares: in process, or Redis with `REDIS_URL`. */
  readonly state: SharedState;
  readonly tools: GovernedTools;
  /** Announces tool list changes to listening agents. */
  readonly watch: ToolWatch;
  /** The governance every request is checked against, fresh for the request that asks. */
  readonly governance: GovernanceCache;
  /** Seals the MCP endpoint's multi round-trip `requestState`. */
  readonly requestState: RequestStateSealer;
  /** The OAuth 2.1 authorization server MCP clients sign in to Portcullis with. */
  readonly oauth: AuthorizationServer;
  /** Signing Portcullis in to remote MCP servers (the upstream OAuth client). */
  readonly upstreamSignIn: UpstreamSignIn;
  readonly startup: BootstrapReport & {
    /** Shown once: the first start's admin token, made as the start's last step. */
    adminToken: string | undefined;
    keyFileCreated: boolean;
    keySource: string;
  };
  operator(actor: string): OperatorContext;
  close(): Promise<void>;
}

export async function openGateway(options: OpenGatewayOptions): Promise<Gateway> {
  const { config } = options;
  const now = options.now ?? (() => new Date());
  ensureDataDir(config.dataDir);
  const opened = await Promise.allSettled([
    options.catalogs instanceof URL
      ? CatalogSet.load(
          generatedProviderFiles(options.catalogs),
          generatedRemoteFiles(options.catalogs),
        )
      : CatalogSet.load(options.catalogs),
    openStore(
      config.databaseUrl
        ? { databaseUrl: config.databaseUrl }
        : { sqliteFile: join(config.dataDir, SQLITE_FILE) },
    ),
    openSharedState({
      ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
      ...(options.onInternalError ? { onListenerError: options.onInternalError } : {}),
    }),
  ] as const);
  const [loaded, storeOpened, stateOpened] = opened;
  if (
    loaded.status === 'rejected' ||
    storeOpened.status === 'rejected' ||
    stateOpened.status === 'rejected'
  ) {
    // What did open is closed again, so a failed start leaves no connection behind.
    if (storeOpened.status === 'fulfilled') await storeOpened.value.close();
    if (stateOpened.status === 'fulfilled') await stateOpened.value.close();
    throw opened.find((result) => result.status === 'rejected')!.reason;
  }
  const catalogs = loaded.value;
  const store = storeOpened.value;
  const state = stateOpened.value;
  let client: GuardedClient | undefined;
  const closeLater: Array<() => Promise<void>> = [];
  try {
    // Once the store answers: a start that cannot reach it makes no key file.
    const keys = loadKeyring(config.dataDir, config.masterKey);
    const toolSources = new GatewayToolSources(catalogToolSources(catalogs));
    const report = await bootstrap(store, toolSources, now());
    const outbound = createGuardedClient({
      allowPrivateNetworks: config.allowPrivateNetworks,
      deadlineMs: config.upstreamDeadlineMs,
    });
    client = outbound;
    const remote = createRemoteMcp(outbound, {
      allowPrivateNetworks: config.allowPrivateNetworks,
      validators: toolSources.validators,
    });
    // An agent's answer to a question another replica holds is taken there.
    const heldRelay = new HeldExchangeRelay<Forwarded>(state, {
      waitMs: config.upstreamDeadlineMs,
      ...(options.onInternalError ? { report: options.onInternalError } : {}),
    });
    remote.executor.relayHeldThrough(heldRelay);
    closeLater.push(async () => heldRelay.close());
    const executors = new Executors([
      new NativeRestExecutor(outbound, upstreamOverride(config.devUpstreams)),
      remote.executor,
    ]);
    const vault = new CredentialVault(keys.keyring, () =>
      reloadKeyring(config.dataDir, config.masterKey),
    );
    await vault.recordCurrentKey(store);
    const keyLocation = {
      dataDir: config.dataDir,
      fromEnvironment: config.masterKey !== undefined,
    };
    const governance = new GovernanceCache(store, toolSources, {
      // Two tools that would share a name are served by neither, and the operator's log says so.
      onToolNameCollision: (collision) =>
        options.onInternalError?.(toolNameCollisionError(collision)),
    });
    // One check of the store's revision, for every part that acts on a change.
    const revisions = new RevisionWatch(governance, {
      ...(options.onInternalError ? { report: options.onInternalError } : {}),
    });
    const watch = new ToolWatch(revisions, {
      state,
      ...(options.onInternalError ? { report: options.onInternalError } : {}),
    });
    const baseUrl =
      config.publicUrl?.href ??
      options.listenUrl ??
      `http://${config.listenAddress.includes(':') ? `[${config.listenAddress}]` : config.listenAddress}:${config.listenPort}`;
    const oauth = await AuthorizationServer.open({
      issuer: config.publicUrl ?? baseUrl,
      store,
      state,
      vault,
      outbound: client,
      redirectAllowlist: config.oauthRedirectUris,
      defaultScopes: config.oauthDefaultScopes,
      signingKeyPem: config.oauthSigningKeyPem,
      allowPrivateNetworks: config.allowPrivateNetworks,
      now,
    });
    // Signing in to remote MCP servers, and the access tokens their calls carry.
    // OAuth exchanges are rare and never retried: a connection each, never a kept-alive one.
    const oauthOutbound = createGuardedClient({
      allowPrivateNetworks: config.allowPrivateNetworks,
      deadlineMs: config.upstreamDeadlineMs,
      reuseConnections: false,
    });
    closeLater.push(() => oauthOutbound.close());
    const upstreamSignIn = new UpstreamSignIn({
      store,
      vault,
      state,
      http: oauthOutbound,
      allowPrivateNetworks: config.allowPrivateNetworks,
      baseUrl,
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      env: config.toolOAuthClients,
      now,
    });
    remote.executor.tokens = new UpstreamTokens(upstreamSignIn, (owner, reason) =>
      signInNeeded(upstreamSignIn, store, owner, reason),
    );
    const tools = new GovernedTools({
      store,
      audit: new AuditLog(store),
      principals: new Principals(governance, [
        new AgentKeys(),
        oauth.accessTokens(undefined, () => now().getTime()),
      ]),
      vault,
      executors,
      remote: remote.executor,
      watch,
      now,
      // A list that shows a prompt or resource the pins do not know has the connection discovered again.
      unpinned: (connectionId) => listChanges.changed(connectionId),
      ...(options.onInternalError ? { report: options.onInternalError } : {}),
    });
    const operator = (actor: string): OperatorContext => ({
      store,
      catalogs,
      toolSources,
      executors,
      remote,
      upstreamSignIn,
      vault,
      keys: keyLocation,
      actor,
      now,
      changed: () => watch.announce(),
    });
    // A remote server that says its tool list changed has it discovered again.
    const listChanges = new ListChanges(
      remote.client,
      async (connectionId) => {
        const endpoint = await store.remoteEndpoints.byConnection(connectionId);
        if (!endpoint || endpoint.draft !== null) return;
        const connection = await store.connections.byId(endpoint.workspaceId, connectionId);
        if (connection?.status !== 'active') return;
        await refreshConnection(operator('system'), connection, endpoint);
        watch.announce();
        watch.touched(connectionId);
      },
      (session, message) => remote.executor.heard(session, message),
    );
    // A connection removed elsewhere (the command, another replica) has its sessions ended here,
    // and so has a session whose credential was rotated there.
    const sessionSweep = new UpstreamSessionSweep({
      revisions,
      sessions: remote.sessions,
      client: remote.client,
      forgotten: (connectionId) => {
        listChanges.stop(connectionId);
        remote.executor.sessionsForgotten(connectionId);
      },
      currentIdentity: storedCredentialIdentity(store, vault),
      ...(options.onInternalError ? { report: options.onInternalError } : {}),
    });
    remote.executor.sessionOpened = (connectionId, target, session) => {
      sessionSweep.opened(session, target);
      listChanges.listen(connectionId, target, session);
    };
    // A session retired because its credential changed stops listening as it is ended.
    remote.executor.sessionEnded = (_connectionId, session) => listChanges.stopSession(session);
    // A remote connection degraded or in error is probed again in the background (with the
    // shared credential its calls carry) until it answers;
    // a tool list whose ttlMs ran out is discovered again.
    const healthProbe = new RemoteHealthProbe({
      store,
      vault,
      client: remote.client,
      tokens: remote.executor.tokens,
      now,
      refresh: (connection, endpoint) =>
        refreshConnection(operator('system'), connection, endpoint).then(() => watch.announce()),
    });
    const requestState = RequestStateSealer.fromMasterKeys(
      [keys.keyring.current, ...keys.keyring.previous].map((key) => key.bytes),
    );
    // Last: everything above can fail, and a token made before it would never be printed.
    const adminToken = await firstAdminToken(store, now());
    sessionSweep.start();
    healthProbe.start();
    return {
      config,
      store,
      catalogs,
      toolSources,
      vault,
      state,
      tools,
      watch,
      governance,
      requestState,
      oauth,
      upstreamSignIn,
      startup: {
        ...report,
        adminToken,
        keyFileCreated: keys.created,
        keySource: keys.source,
      },
      operator,
      async close() {
        await healthProbe.stop();
        await sessionSweep.stop();
        listChanges.close();
        remote.executor.endSubscriptions();
        remote.executor.cancelHeld();
        // An HTTP+SSE session holds a stream open; the outbound client would wait for it.
        for (const session of remote.sessions.forgetAll())
          if (session.era === 'sse') session.channel.close();
        watch.close();
        await revisions.close();
        await outbound.close();
        for (const close of closeLater) await close();
        await state.close();
        await store.close();
      },
    };
  } catch (error) {
    await client?.close();
    for (const close of closeLater) await close();
    await state.close();
    await store.close();
    throw error;
  }
}
