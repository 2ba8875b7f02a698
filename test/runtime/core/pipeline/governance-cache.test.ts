import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import {
  CatalogSet,
  generatedProviderFiles,
} from '../../../../runtime/core/catalog/catalog-set.ts';
import type { ToolSources } from '../../../../runtime/core/governance/tool-source.ts';
import { GovernanceCache } from '../../../../runtime/core/pipeline/governance-cache.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { catalogToolSources } from '../../../../runtime/core/sources/native-rest/catalog-tool-source.ts';
import { GENERATED } from '../../../support/gateway.ts';
import { aWorkspace } from '../../../support/store-fixtures.ts';

let store: Store;
let toolSources: ToolSources;

beforeAll(async () => {
  store = await openStore({ sqliteFile: ':memory:' });
  toolSources = catalogToolSources(await CatalogSet.load(generatedProviderFiles(GENERATED)));
});

afterAll(async () => {
  await store.close();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the governance cache', () => {
  it('shows a request a change committed after an earlier check of the same turn', async () => {
    const cache = new GovernanceCache(store, toolSources);
    await nextTurn();
    // All within one turn: the embedded engine answers without leaving it.
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const first = await cache.current();
    await store.workspaces.create(aWorkspace({ id: 'ws_later', name: 'later' }));
    expect(turned).toBe(false);
    const second = await cache.current();
    expect(second.revision).toBeGreaterThan(first.revision);
  });

  it('answers a burst with two revision reads: the first at once, the rest together', async () => {
    const cache = new GovernanceCache(store, toolSources);
    await nextTurn();
    const reads = vi.spyOn(store, 'revision');
    try {
      const burst = Array.from({ length: 10 }, () => cache.current());
      const snapshots = await Promise.all(burst);
      expect(reads).toHaveBeenCalledTimes(2);
      expect(new Set(snapshots).size).toBe(1);
      await nextTurn();
      await cache.current();
      expect(reads).toHaveBeenCalledTimes(3);
    } finally {
      reads.mockRestore();
    }
  });
});
