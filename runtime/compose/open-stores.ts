/**
 * What the gateway keeps, opened together at start: the catalogs it serves,
 * the store (SQLite in the data folder, or PostgreSQL with `DATABASE_URL`)
 * and the shared ephemeral state (in process, or Redis with `REDIS_URL`).
 * When one fails to open, what did open is closed again, so a failed start
 * leaves no connection behind.
 */
import { join } from 'node:path';
import { openStore } from '../adapters/sql/open-store.ts';
import type { Config } from '../config/config.ts';
import {
  CatalogSet,
  generatedProviderFiles,
  type ProviderFiles,
} from '../core/catalog/catalog-set.ts';
import { generatedRemoteFiles } from '../core/catalog/curated-remotes.ts';
import type { SharedState } from '../core/ports/shared-state/shared-state.ts';
import type { Store } from '../core/ports/store.ts';
import { openSharedState } from './open-shared-state.ts';

/** The SQLite store's file in the data folder. */
export const SQLITE_FILE = 'portcullis.sqlite';

export interface Stores {
  catalogs: CatalogSet;
  store: Store;
  state: SharedState;
}

export async function openStores(options: {
  config: Config;
  /** The compiled `generated/` folder (its URL), or explicit files. */
  catalogs: URL | readonly ProviderFiles[];
  onInternalError?: ((error: unknown) => void) | undefined;
}): Promise<Stores> {
  const { config } = options;
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
    if (storeOpened.status === 'fulfilled') await storeOpened.value.close();
    if (stateOpened.status === 'fulfilled') await stateOpened.value.close();
    throw opened.find((result) => result.status === 'rejected')!.reason;
  }
  return { catalogs: loaded.value, store: storeOpened.value, state: stateOpened.value };
}
