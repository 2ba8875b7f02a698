/**
 * The gateway's composition root: configuration in, the parts every surface
 * uses out (the MCP tool backend, the operator verbs' context, the store),
 * with the start-up checks done. The HTTP server, the `portcullis` command,
 * the tests and the benchmark all open the gateway through here. It lives
 * outside `runtime/core`, which never imports an adapter (the store, Redis).
 * Each part is made whole, after the parts it needs: the stores
 * (open-stores.ts), governance, the OAuth roles (open-oauth.ts), the remote
 * MCP parts (open-remote.ts), the governed tools, then the background work.
 */
import { join } from 'node:path';
import { AuditJournal } from '../adapters/journal/audit-journal.ts';
import { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics.ts';
import type { Config } from '../config/config.ts';
import { ensureDataDir } from '../config/data-dir.ts';
import type { CatalogSet, ProviderFiles } from '../core/catalog/catalog-set.ts';
import { toolNameCollisionError } from '../core/governance/tool-names.ts';
import type { ToolSources } from '../core/governance/tool-source.ts';
import type { UpstreamSignIn } from '../core/identity/oauth-client/upstream-sign-in.ts';
import type { AuthorizationServer } from '../core/identity/oauth-server/authorization-server.ts';
import { AgentKeys } from '../core/identity/principals/agent-keys.ts';
import { Principals } from '../core/identity/principals/principals.ts';
import { RequestStateSealer } from '../core/mcp/server/request-state.ts';
import type { OperatorContext, PinningContext } from '../core/operator/context.ts';
import { refreshConnection, refreshListed } from '../core/operator/remote-refresh.ts';
import { createGuardedClient, type GuardedClient } from '../core/outbound/guarded-client.ts';
import { ApprovalWebhook } from '../core/pipeline/approval-webhook.ts';
import { ApprovedCalls } from '../core/pipeline/approved-calls.ts';
import { AuditLog } from '../core/pipeline/audit-log.ts';
import { type BootstrapReport, bootstrap, firstAdminToken } from '../core/pipeline/bootstrap.ts';
import { CallLimits } from '../core/pipeline/call-limits.ts';
import { GatewayToolSources } from '../core/pipeline/gateway-tool-sources.ts';
import { GovernanceCache } from '../core/pipeline/governance-cache.ts';
import { GovernedTools } from '../core/pipeline/governed-tools.ts';
import { expireApprovals } from '../core/pipeline/held-calls.ts';
import { RevisionWatch } from '../core/pipeline/revision-watch.ts';
import { ToolWatch } from '../core/pipeline/tool-watch.ts';
import type { SharedState } from '../core/ports/shared-state/shared-state.ts';
import type { Store } from '../core/ports/store.ts';
import { Executors } from '../core/sources/executor.ts';
import { catalogToolSources } from '../core/sources/native-rest/catalog-tool-source.ts';
import { NativeRestExecutor } from '../core/sources/native-rest/native-rest-executor.ts';
import { upstreamOverride } from '../core/sources/native-rest/upstream-override.ts';
import { RemoteHealthProbe } from '../core/sources/remote-mcp/health-probe.ts';
import { storedCredentialIdentity } from '../core/sources/remote-mcp/held-credentials.ts';
import { TaskIds } from '../core/tasks/task-ids.ts';
import { TaskSweep } from '../core/tasks/task-sweep.ts';
import { CredentialVault } from '../core/vault/credential-vault.ts';
import { loadKeyring, reloadKeyring } from '../core/vault/key-file.ts';
import { journalOrderedStore } from './journal-ordered-store.ts';
import { openOAuth } from './open-oauth.ts';
import { remoteDiscovery, wireRemoteCalls } from './open-remote.ts';
import { openStores } from './open-stores.ts';

export { SQLITE_FILE } from './open-stores.ts';

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
  /** The MCP sessions this process holds, for `/metrics` (the HTTP server counts them). */
  liveSessions?: () => number;
}

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
  /** What `/metrics` answers: every governed call counted, in the Prometheus text format. */
  readonly metrics: PrometheusMetrics;
  readonly startup: BootstrapReport & {
    /** Shown once: the first start's admin token, made as the start's last step. */
    adminToken: string | undefined;
    keyFileCreated: boolean;
    keySource: string;
  };
  operator(actor: string): OperatorContext;
  /** The calls' audit journal (`PORTCULLIS_AUDIT_JOURNAL=on`), for `/readyz` to tell when it falls behind. */
  readonly auditJournal: AuditJournal | undefined;
  /**
   * The server stops taking requests: a call held for the agent's answer is
   * cancelled (and answers), since the answer could no longer come in.
   */
  stopHolding(): void;
  /**
   * Stops the background work, lets the calls still running end (with
   * `cancelCalls`, their upstream requests fail at once) and waits for their
   * audit events, ends the upstream sessions, then closes the shared state
   * and the store.
   */
  close(options?: { cancelCalls?: boolean }): Promise<void>;
}

export async function openGateway(options: OpenGatewayOptions): Promise<Gateway> {
  const { config } = options;
  const now = options.now ?? (() => new Date());
  const report = options.onInternalError;
  ensureDataDir(config.dataDir);
  const opened = await openStores({
    config,
    catalogs: options.catalogs,
    onInternalError: report,
  });
  const { catalogs, state } = opened;
  // The calls' audit events go through the journal (folded into the store off the reply
  // path); the gateway's reads of the log, and its own writes of events, wait for what
  // was appended before them.
  // With it off, the files a process with it on left here are still folded, once.
  const folder = join(config.dataDir, 'audit-journal');
  const journal = await (config.auditJournal
    ? AuditJournal.open({ folder, store: opened.store, report })
    : AuditJournal.foldLeft(folder, opened.store).then(() => undefined)
  ).catch(async (error) => {
    await state.close();
    await opened.store.close();
    throw error;
  });
  const store = journal
    ? journalOrderedStore(opened.store, {
        drain: () => AuditJournal.drainHere(),
        beside: (write) => journal.beside(write),
      })
    : opened.store;
  let client: GuardedClient | undefined;
  const closeLater: Array<() => Promise<void>> = [];
  try {
    // Once the store answers: a start that cannot reach it makes no key file.
    const keys = loadKeyring(config.dataDir, config.masterKey);
    const toolSources = new GatewayToolSources(catalogToolSources(catalogs));
    const startReport = await bootstrap(store, toolSources, now());
    const outbound = createGuardedClient({
      allowPrivateNetworks: config.allowPrivateNetworks,
      deadlineMs: config.upstreamDeadlineMs,
    });
    client = outbound;
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
      onToolNameCollision: (collision) => report?.(toolNameCollisionError(collision)),
    });
    // One check of the store's revision, for every part that acts on a change.
    const revisions = new RevisionWatch(governance, { ...(report ? { report } : {}) });
    const watch = new ToolWatch(revisions, { state, ...(report ? { report } : {}) });
    const baseUrl =
      config.publicUrl?.href ??
      options.listenUrl ??
      `http://${config.listenAddress.includes(':') ? `[${config.listenAddress}]` : config.listenAddress}:${config.listenPort}`;
    const { oauth, upstreamSignIn, tokens } = await openOAuth({
      config,
      baseUrl,
      store,
      state,
      vault,
      outbound,
      now,
      closeLater,
    });
    // Discovering and pinning a remote server's lists again in the background (a list change
    // heard, a list whose ttlMs ran out), as the system.
    const discovery = remoteDiscovery({
      config,
      outbound,
      validators: toolSources.validators,
      tokens,
    });
    const pinning: PinningContext = {
      store,
      vault,
      toolSources,
      actor: 'system',
      now,
      remote: discovery,
    };
    const { remote, subscriptions, listChanges, sessionSweep } = wireRemoteCalls({
      config,
      discovery,
      refresh: async (connectionId) => {
        if (!(await refreshListed(pinning, connectionId))) return;
        watch.announce();
        watch.touched(connectionId);
      },
      revisions,
      state,
      currentIdentity: storedCredentialIdentity(store, vault),
      report,
    });
    closeLater.push(async () => remote.executor.closeRelay());
    const executors = new Executors([
      new NativeRestExecutor(outbound, upstreamOverride(config.devUpstreams)),
      remote.executor,
    ]);
    const metrics = new PrometheusMetrics({
      liveSessions: options.liveSessions ?? (() => 0),
      connections: () => store.connections.all(),
    });
    const masterKeys = [keys.keyring.current, ...keys.keyring.previous].map((key) => key.bytes);
    const webhook =
      config.approvals.webhook &&
      new ApprovalWebhook({
        url: new URL(config.approvals.webhook.url),
        secret: config.approvals.webhook.secret,
        client: outbound,
        report: report ?? (() => {}),
        now,
      });
    const tools = new GovernedTools({
      metrics,
      taskIds: TaskIds.fromMasterKeys(masterKeys),
      store,
      audit: journal ?? new AuditLog(store),
      principals: new Principals(governance, [
        new AgentKeys(),
        oauth.accessTokens(undefined, () => now().getTime()),
      ]),
      vault,
      executors,
      remote: remote.executor,
      watch,
      limits: new CallLimits(state, config.rateLimits),
      now,
      discoveryThreshold: config.discoveryThreshold,
      approvals: {
        ttlMs: config.approvals.ttlMs,
        waitMs: config.approvals.waitMs,
        ...(webhook ? { held: (approval) => webhook.held(approval) } : {}),
      },
      // A list that shows a prompt or resource the pins do not know has the connection discovered again.
      unpinned: (connectionId) => listChanges.changed(connectionId),
      ...(report ? { report } : {}),
    });
    // An approval approved on any replica: a task client's held call runs at once, once.
    const approvedCalls = new ApprovedCalls({
      state,
      run: (id) => tools.runApproved(id),
      report: report ?? (() => {}),
    });
    const operator = (actor: string): OperatorContext => ({
      store,
      catalogs,
      toolSources,
      executors,
      remote,
      upstreamSignIn,
      upstreamTokens: tokens,
      vault,
      keys: keyLocation,
      actor,
      now,
      changed: () => watch.announce(),
      reviewFlagged: config.reviewFlagged,
      approvals: { ...config.approvals, approved: (id) => approvedCalls.announce(id) },
      oauthStepUp: config.oauthStepUp,
    });
    // A remote connection degraded or in error is probed again in the background (with the
    // shared credential its calls carry) until it answers;
    // a tool list whose ttlMs ran out is discovered again.
    const healthProbe = new RemoteHealthProbe({
      store,
      vault,
      client: remote.client,
      tokens,
      now,
      refresh: (connection, endpoint) =>
        refreshConnection(pinning, connection, endpoint).then(() => watch.announce()),
    });
    const requestState = RequestStateSealer.fromMasterKeys(masterKeys);
    const taskSweep = new TaskSweep({ prune: () => tools.tasks.prune(), report });
    // Calls held for approval whose time ran out: expired, each audited.
    const approvalSweep = new TaskSweep({
      prune: () => expireApprovals(store, now()),
      report,
      everyMs: 60_000,
    });
    // Last: everything above can fail, and a token made before it would never be printed.
    const adminToken = await firstAdminToken(store, now());
    sessionSweep.start();
    healthProbe.start();
    taskSweep.start();
    approvalSweep.start();
    approvedCalls.start();
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
      metrics,
      startup: {
        ...startReport,
        adminToken,
        keyFileCreated: keys.created,
        keySource: keys.source,
      },
      operator,
      auditJournal: journal,
      stopHolding: () => remote.executor.cancelHeld(),
      async close({ cancelCalls = false } = {}) {
        await healthProbe.stop();
        await sessionSweep.stop();
        await taskSweep.stop();
        await approvalSweep.stop();
        approvedCalls.close();
        listChanges.close();
        subscriptions.close();
        remote.executor.cancelHeld();
        if (cancelCalls) await outbound.abort();
        // Every call begun ends and its audit event is written before the store closes.
        await tools.settled();
        // Told upstream (a 2025 session's DELETE; an HTTP+SSE stream, which the
        // outbound client would wait for, closed).
        await remote.executor.closeSessions();
        watch.close();
        await revisions.close();
        await outbound.close();
        for (const close of closeLater) await close();
        // Last before the store: the events of what ended above (a subscription let go as
        // its session closed) are folded too. Its file is removed; a store that fails
        // leaves it for the next start.
        await journal?.close().catch((error) => report?.(error));
        await state.close();
        await store.close();
      },
    };
  } catch (error) {
    await client?.close();
    for (const close of closeLater) await close();
    // Taken out of this process's journals, which every other gateway here drains.
    await journal?.close().catch((closing) => report?.(closing));
    await state.close();
    await store.close();
    throw error;
  }
}
