/**
 * The grant verb on its own, against a real (in-memory) store and the
 * compiled catalogs: one grant per agent and connection, granting again
 * widens or narrows it in place (audited as grant.update), the same terms
 * again change nothing, and an action the catalog lacks is not_found with the
 * nearest name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../../runtime/adapters/sql/open-store.ts';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import {
  CatalogSet,
  generatedProviderFiles,
} from '../../../../runtime/core/catalog/catalog-set.ts';
import type { Grant } from '../../../../runtime/core/model/governance.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { bootstrap } from '../../../../runtime/core/pipeline/bootstrap.ts';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { catalogToolSources } from '../../../../runtime/core/sources/native-rest/catalog-tool-source.ts';
import { GENERATED } from '../../../support/gateway.ts';
import { aConnection } from '../../../support/store-fixtures.ts';

let store: Store;
let ctx: OperatorContext;

beforeAll(async () => {
  store = await openStore({ sqliteFile: ':memory:' });
  const catalogs = await CatalogSet.load(generatedProviderFiles(GENERATED));
  const toolSources = catalogToolSources(catalogs);
  const { defaultWorkspaceId } = await bootstrap(store, toolSources, new Date());
  await store.connections.create(
    aConnection({ workspaceId: defaultWorkspaceId, status: 'active' }),
  );
  ctx = {
    store,
    catalogs,
    toolSources,
    executors: undefined as never,
    vault: undefined as never,
    keys: { dataDir: '/nowhere', fromEnvironment: false },
    actor: 'test',
    now: () => new Date(),
  };
  await createAgent(ctx, { workspace: 'default', name: 'bot' });
});

afterAll(() => store.close());

const grantOf = (input: Record<string, unknown>, agent = 'bot') =>
  grant(ctx, { workspace: 'default', agent, connection: 'unikraft', ...input });

describe('the grant verb', () => {
  it('creates one grant, then widens and narrows it in place, audited as grant.update', async () => {
    // An agent of its own, never granted before; the audit read from here on.
    const grantWidened = (input: Record<string, unknown>) => grantOf(input, 'widened');
    await createAgent(ctx, { workspace: 'default', name: 'widened' });
    const audited = (await store.audit.query({ ascending: true })).length;
    const first = await grantWidened({});
    expect(first).toMatchObject({ scope: 'reads' });
    expect(first.previous).toBeUndefined();
    const widened = await grantWidened({ scope: 'all' });
    expect(widened).toMatchObject({ id: first.id, scope: 'all', previous: { scope: 'reads' } });
    const narrowed = await grantWidened({ scope: 'actions', actions: ['unikraft_get_user'] });
    expect(narrowed).toMatchObject({
      id: first.id,
      scope: 'actions',
      actions: ['unikraft_get_user'],
    });
    expect(await store.grants.forAgent((first as Grant).agentId)).toHaveLength(1);
    const verbs = (await store.audit.query({ ascending: true }))
      .slice(audited)
      .map((event) => event.action)
      .filter((action) => action.startsWith('grant.'));
    expect(verbs).toEqual(['grant.create', 'grant.update', 'grant.update']);
  });

  it('changes nothing when granted the same terms again', async () => {
    const terms = { scope: 'actions', actions: ['unikraft_get_user'] };
    await grantOf(terms);
    const before = (await store.audit.query({})).length;
    await grantOf(terms);
    expect((await store.audit.query({})).length).toBe(before);
  });

  it('refuses an action the catalog lacks, naming the nearest one', async () => {
    const refusal = await grantOf({ scope: 'actions', actions: ['unikraft_get_usr'] }).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ code: 'not_found', field: 'actions' });
    expect((refusal as Error).message).toContain('unikraft_get_user');
  });
});
