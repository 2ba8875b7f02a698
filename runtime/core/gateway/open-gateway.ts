/**
 * The gateway's composition root: configuration in, the parts every surface
 * uses out (the MCP tool host, the operator verbs' context, the store), with
 * the start-up checks done. The HTTP server, the `portcullis` command, the
 * tests and the benchmark all open the gateway through here.
 */
import { join } from 'node:path';
import { openStore } from '../../store/open-store.ts';
import { CatalogSet, generatedProviderFiles, type ProviderFiles } from '../catalog/catalog-set.ts';
import type { Config } from '../config/config.ts';
import { ensureDataDir } from '../config/data-dir.ts';
import { NativeRestExecutor } from '../execute/native-rest-executor.ts';
import { upstreamOverride } from '../execute/upstream-override.ts';
import type { OperatorContext } from '../operator/context.ts';
import { createGuardedClient } from '../outbound/guarded-client.ts';
import type { Store } from '../store/store.ts';
import { CredentialVault } from '../vault/credential-vault.ts';
import { loadKeyring, reloadKeyring } from '../vault/key-file.ts';
import { AuditLog } from './audit-log.ts';
import { type BootstrapReport, bootstrap } from './bootstrap.ts';
import { GovernanceCache } from './governance-cache.ts';
import { GovernedTools } from './governed-tools.ts';

export interface OpenGatewayOptions {
  config: Config;
  /**
   * The catalogs to serve: the compiled `generated/` folder (its URL, since a
   * bundled entry point sits elsewhere than the sources), or explicit files.
   */
  catalogs: URL | readonly ProviderFiles[];
  now?: () => Date;
  /** Told about failures no caller sees (the operator's log). */
  onInternalError?: (error: unknown) => void;
}

export interface Gateway {
  readonly config: Config;
  readonly store: Store;
  readonly catalogs: CatalogSet;
  readonly vault: CredentialVault;
  readonly tools: GovernedTools;
  readonly startup: BootstrapReport & { keyFileCreated: boolean; keySource: string };
  operator(actor: string): OperatorContext;
  close(): Promise<void>;
}

export async function openGateway(options: OpenGatewayOptions): Promise<Gateway> {
  const { config } = options;
  const now = options.now ?? (() => new Date());
  ensureDataDir(config.dataDir);
  const keys = loadKeyring(config.dataDir, config.masterKey);
  const [catalogs, store] = await Promise.all([
    CatalogSet.load(
      options.catalogs instanceof URL ? generatedProviderFiles(options.catalogs) : options.catalogs,
    ),
    openStore(
      config.databaseUrl
        ? { databaseUrl: config.databaseUrl }
        : { sqliteFile: join(config.dataDir, 'portcullis.sqlite') },
    ),
  ]);
  try {
    const report = await bootstrap(store, catalogs, now());
    const client = createGuardedClient({
      allowPrivateNetworks: config.allowPrivateNetworks,
      deadlineMs: config.upstreamDeadlineMs,
    });
    const executor = new NativeRestExecutor(client, upstreamOverride(config.devUpstreams));
    const vault = new CredentialVault(keys.keyring, () =>
      reloadKeyring(config.dataDir, config.masterKey),
    );
    await vault.recordCurrentKey(store);
    const keyLocation = {
      dataDir: config.dataDir,
      fromEnvironment: config.masterKey !== undefined,
    };
    const governance = new GovernanceCache(store, catalogs);
    const audit = new AuditLog(store);
    const tools = new GovernedTools({
      store,
      audit,
      governance,
      vault,
      executor,
      now,
      ...(options.onInternalError ? { report: options.onInternalError } : {}),
    });
    return {
      config,
      store,
      catalogs,
      vault,
      tools,
      startup: { ...report, keyFileCreated: keys.created, keySource: keys.source },
      operator: (actor) => ({ store, catalogs, vault, executor, keys: keyLocation, actor, now }),
      async close() {
        await client.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
