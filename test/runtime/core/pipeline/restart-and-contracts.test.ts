/**
 * What survives a restart, and contract safety at start: the same store
 * opened again keeps every row; a catalog whose contracts moved blocks the
 * changed actions, quarantines new ones and retires removed ones. Both
 * engines, the embedded SQLite file and PostgreSQL.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, CatalogAction } from '../../../../generated/catalog-format.ts';
import {
  generatedProviderFiles,
  type ProviderFiles,
} from '../../../../runtime/core/catalog/catalog-set.ts';
import {
  adminClient,
  callTool,
  GENERATED,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { testSchemas } from '../../../support/postgres.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';

/** The generated catalogs, with Unikraft's changed the way a new upstream release would. */
function movedCatalogs(): ProviderFiles[] {
  const folder = mkdtempSync(join(tmpdir(), 'portcullis-moved-'));
  const catalog = JSON.parse(
    readFileSync(new URL('unikraft/catalog.json', GENERATED), 'utf8'),
  ) as Catalog;
  const byName = (name: string) => catalog.actions.find((a) => a.name === name)!;
  const changed = byName('unikraft_healthz');
  changed.contractHash = 'f'.repeat(64);
  const added: CatalogAction = {
    ...byName('unikraft_get_user'),
    name: 'unikraft_get_user_again',
    contractHash: 'e'.repeat(64),
  };
  catalog.actions = [...catalog.actions.filter((a) => a.name !== 'unikraft_get_images'), added];
  writeFileSync(join(folder, 'catalog.json'), JSON.stringify(catalog));
  return generatedProviderFiles(GENERATED).map((files) =>
    files.id === 'unikraft'
      ? { ...files, catalog: pathToFileURL(join(folder, 'catalog.json')) }
      : files,
  );
}

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

const engines: Array<[string, () => Promise<string | undefined>]> = [
  ['SQLite', async () => undefined],
  ['PostgreSQL', async () => schemas.urlFor(await schemas.create())],
];

describe.each(engines)('on %s', (_engine, database) => {
  let prism: PrismServer;
  let dataDir: string;
  let databaseUrl: string | undefined;
  let gateway: TestGateway | undefined;
  let adminToken: string;
  let agentKey: string;
  const start = (catalogs?: ProviderFiles[]) =>
    startTestGateway({
      dataDir,
      upstreams: { unikraft: prism.url },
      ...(databaseUrl ? { databaseUrl } : {}),
      ...(catalogs ? { catalogs } : {}),
    });

  async function callCode(key: string, name: string): Promise<string | undefined> {
    const client = await mcpClient(gateway!.url, key);
    try {
      const result = await callTool(client, name);
      return result.isError ? result.structuredContent?.error?.code : 'ok';
    } finally {
      await client.close();
    }
  }

  beforeAll(async () => {
    prism = await startPrism('unikraft', 'platform');
  });

  // Each test a store of its own (a folder, or a schema): the connection, an agent granted it, an action enabled.
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-restart-'));
    databaseUrl = await database();
    gateway = await start();
    adminToken = gateway.adminToken!;
    const admin = adminClient(gateway.url, adminToken);
    await admin('POST', '/workspaces/default/connections', {
      provider: 'unikraft',
      credential: 'token-1',
    });
    agentKey = (await admin('POST', '/workspaces/default/agents', { name: 'keeper' })).body.key;
    await admin('POST', '/workspaces/default/grants', {
      agent: 'keeper',
      connection: 'unikraft',
      scope: 'all',
    });
    await admin('POST', '/workspaces/default/connections/unikraft/actions/enable', {
      actions: ['unikraft_create_volume'],
    });
    expect(await callCode(agentKey, 'unikraft_get_user')).toBe('ok');
  });

  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  afterAll(async () => {
    await prism?.stop();
  });

  describe('a restart', () => {
    it('keeps every row: the agent key, the grant, the policies, the credential and the audit log', async () => {
      const before = (await adminClient(gateway!.url, adminToken)('GET', '/audit?limit=1000')).body;
      await gateway!.close();
      gateway = await start();
      expect(gateway.adminToken).toBeUndefined();
      const admin = adminClient(gateway.url, adminToken);
      const after = (await admin('GET', '/audit?limit=1000')).body;
      expect(after).toEqual(before);
      expect(await callCode(agentKey, 'unikraft_get_user')).toBe('ok');
      const actions = (await admin('GET', '/workspaces/default/connections/unikraft/actions'))
        .body as Array<{ action: string; state: string }>;
      expect(actions.find((a) => a.action === 'unikraft_create_volume')?.state).toBe('enabled');
    });
  });

  describe('contract safety at start', () => {
    beforeEach(async () => {
      await gateway!.close();
      gateway = await start(movedCatalogs());
    });

    it('blocks an action whose contract changed with contract_changed, until reviewed', async () => {
      expect(await callCode(agentKey, 'unikraft_healthz')).toBe('contract_changed');
      const admin = adminClient(gateway!.url, adminToken);
      const listed = (await admin('GET', '/workspaces/default/connections/unikraft/actions'))
        .body as Array<{ action: string; contractChanged: boolean }>;
      expect(listed.find((a) => a.action === 'unikraft_healthz')?.contractChanged).toBe(true);
      await admin('POST', '/workspaces/default/connections/unikraft/actions/review', {
        actions: ['unikraft_healthz'],
      });
      expect(await callCode(agentKey, 'unikraft_healthz')).toBe('ok');
    });

    it('quarantines an action new to the catalog until reviewed', async () => {
      expect(await callCode(agentKey, 'unikraft_get_user_again')).toBe('action_quarantined');
      const admin = adminClient(gateway!.url, adminToken);
      const [reviewed] = (
        await admin('POST', '/workspaces/default/connections/unikraft/actions/review', {
          actions: ['unikraft_get_user_again'],
        })
      ).body;
      expect(reviewed).toMatchObject({ state: 'enabled', contractChanged: false });
      expect(await callCode(agentKey, 'unikraft_get_user_again')).toBe('ok');
    });

    it('retires an action that left the catalog', async () => {
      const admin = adminClient(gateway!.url, adminToken);
      const listed = (await admin('GET', '/workspaces/default/connections/unikraft/actions'))
        .body as Array<{ action: string; state: string }>;
      expect(listed.find((a) => a.action === 'unikraft_get_images')?.state).toBe('retired');
      // Reviewing everything after an upgrade leaves retired actions alone.
      const reviewed = await admin(
        'POST',
        '/workspaces/default/connections/unikraft/actions/review',
        { all: true },
      );
      expect(reviewed.status).toBe(200);
      const after = (await admin('GET', '/workspaces/default/connections/unikraft/actions'))
        .body as Array<{ action: string; state: string }>;
      expect(after.find((a) => a.action === 'unikraft_get_images')?.state).toBe('retired');
      expect(await callCode(agentKey, 'unikraft_get_images')).toBe('action_retired');
    });

    it('keeps unchanged actions as they were', async () => {
      expect(await callCode(agentKey, 'unikraft_get_user')).toBe('ok');
    });
  });
});
