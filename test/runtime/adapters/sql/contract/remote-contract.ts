/**
 * Remote MCP endpoint records, pinned tool lists and pinned prompts,
 * resources and templates: kept, replaced, and removed with their connection.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type {
  RemoteEndpoint,
  RemoteFeature,
  RemoteTool,
} from '../../../../../runtime/core/model/remote.ts';
import { aConnection, aWorkspace, reasonOf, T0, T1 } from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

function anEndpoint(overrides: Partial<RemoteEndpoint> = {}): RemoteEndpoint {
  return {
    connectionId: 'conn_r',
    workspaceId: 'ws_1',
    url: 'https://mcp.example.com/mcp',
    transport: 'streamable-http',
    revision: '2025-11-25',
    authKind: 'headers',
    headerNames: ['X-Api-Key', 'X-Team'],
    serverInfo: { name: 'example', version: '1.0.0' },
    features: { prompts: true, resources: false, completions: false },
    draft: null,
    classificationOverrides: { wipe_cache: 'write' },
    toolsExpireAt: T1,
    oauth: null,
    updatedAt: T0,
    ...overrides,
  };
}

function aTool(name: string, overrides: Partial<RemoteTool> = {}): RemoteTool {
  return {
    connectionId: 'conn_r',
    workspaceId: 'ws_1',
    name,
    contract: {
      name,
      description: 'Zürich ☃ "quoted"',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      annotations: { readOnlyHint: true },
    },
    contractHash: `hash_${name}`,
    classification: 'read',
    classificationRule: 'annotation:readOnlyHint',
    discoveredAt: T0,
    changedFrom: null,
    ...overrides,
  };
}

function aPrompt(name: string, overrides: Partial<RemoteFeature> = {}): RemoteFeature {
  return {
    kind: 'prompt',
    contract: {
      name,
      description: 'Grüßt ☃ "quoted"',
      arguments: [{ name: 'who', description: 'Whom to greet', required: true }],
    },
    connectionId: 'conn_r',
    workspaceId: 'ws_1',
    key: `prompt:${name}`,
    contractHash: `hash_${name}`,
    discoveredAt: T0,
    changedFrom: null,
    ...overrides,
  } as RemoteFeature;
}

const aResource: RemoteFeature = {
  kind: 'resource',
  contract: { uri: 'memo://welcome', name: 'welcome', mimeType: 'text/plain' },
  connectionId: 'conn_r',
  workspaceId: 'ws_1',
  key: 'resource:memo://welcome',
  contractHash: 'hash_welcome',
  discoveredAt: T0,
  changedFrom: null,
};

export function describeRemoteContract(subject: StoreSubject): void {
  describe('remote MCP rows', () => {
    beforeEach(async () => {
      await subject.store.workspaces.create(aWorkspace());
      await subject.store.connections.create(
        aConnection({ id: 'conn_r', name: 'remote', provider: 'remote-mcp', settings: {} }),
      );
    });

    it('keep an endpoint record and replace it whole', async () => {
      const { store } = subject;
      await store.remoteEndpoints.put(anEndpoint({ serverInfo: null, transport: null }));
      expect(await store.remoteEndpoints.byConnection('conn_r')).toEqual(
        anEndpoint({ serverInfo: null, transport: null }),
      );
      const before = await store.revision();
      await store.remoteEndpoints.put(anEndpoint({ draft: 'credential_needed', updatedAt: T1 }));
      expect(await store.revision()).toBeGreaterThan(before);
      expect(await store.remoteEndpoints.all()).toEqual([
        anEndpoint({ draft: 'credential_needed', updatedAt: T1 }),
      ]);
    });

    it('refuse an endpoint for a connection that does not exist', async () => {
      expect(
        await reasonOf(subject.store.remoteEndpoints.put(anEndpoint({ connectionId: 'conn_x' }))),
      ).toEqual({ code: 'not_found', field: 'connection' });
    });

    it('replace the pinned tool list as a whole, listed by name', async () => {
      const { store } = subject;
      await store.remoteTools.replace({ id: 'conn_r', workspaceId: 'ws_1' }, [
        aTool('zeta'),
        aTool('alpha'),
      ]);
      expect((await store.remoteTools.forConnection('conn_r')).map((t) => t.name)).toEqual([
        'alpha',
        'zeta',
      ]);
      const many = Array.from({ length: 250 }, (_, i) =>
        aTool(`tool_${String(i).padStart(3, '0')}`),
      );
      await store.remoteTools.replace({ id: 'conn_r', workspaceId: 'ws_1' }, many);
      expect(await store.remoteTools.all()).toEqual(many);
    });

    it('keep the contract last reviewed beside a changed one', async () => {
      const { store } = subject;
      const reviewed = aTool('alpha').contract;
      const changed = aTool('alpha', {
        contract: { ...reviewed, description: 'Now it deletes ☃' },
        contractHash: 'hash_alpha_2',
        changedFrom: { contract: reviewed, contractHash: 'hash_alpha', since: T1 },
      });
      await store.remoteTools.replace({ id: 'conn_r', workspaceId: 'ws_1' }, [changed]);
      expect(await store.remoteTools.forConnection('conn_r')).toEqual([changed]);
    });

    it('replace the pinned prompts, resources and templates as a whole, by key, moving the revision', async () => {
      const { store } = subject;
      const connection = { id: 'conn_r', workspaceId: 'ws_1' };
      const before = await store.revision();
      await store.remoteFeatures.replace(connection, [
        aResource,
        aPrompt('zeta'),
        aPrompt('alpha'),
      ]);
      expect(await store.revision()).toBeGreaterThan(before);
      expect((await store.remoteFeatures.forConnection('conn_r')).map((f) => f.key)).toEqual([
        'prompt:alpha',
        'prompt:zeta',
        'resource:memo://welcome',
      ]);
      const reviewed = aPrompt('alpha').contract;
      const changed = aPrompt('alpha', {
        contract: { ...reviewed, description: 'Now it says more ☃' },
        contractHash: 'hash_alpha_2',
        changedFrom: { contract: reviewed, contractHash: 'hash_alpha', since: T1 },
      } as Partial<RemoteFeature>);
      const many = Array.from({ length: 150 }, (_, i) =>
        aPrompt(`prompt_${String(i).padStart(3, '0')}`),
      );
      await store.remoteFeatures.replace(connection, [changed, ...many]);
      expect(await store.remoteFeatures.all()).toEqual([changed, ...many]);
    });

    it('refuse pinned prompts for a connection that does not exist', async () => {
      expect(
        await reasonOf(
          subject.store.remoteFeatures.replace({ id: 'conn_x', workspaceId: 'ws_1' }, [
            aPrompt('alpha', { connectionId: 'conn_x' }),
          ]),
        ),
      ).toEqual({ code: 'not_found', field: 'connection' });
    });

    it('go with their connection', async () => {
      const { store } = subject;
      await store.remoteEndpoints.put(anEndpoint());
      await store.remoteTools.replace({ id: 'conn_r', workspaceId: 'ws_1' }, [aTool('alpha')]);
      await store.remoteFeatures.replace({ id: 'conn_r', workspaceId: 'ws_1' }, [aResource]);
      expect(await store.connections.remove('ws_1', 'conn_r')).toBe(true);
      expect(await store.remoteEndpoints.byConnection('conn_r')).toBeUndefined();
      expect(await store.remoteTools.forConnection('conn_r')).toEqual([]);
      expect(await store.remoteFeatures.forConnection('conn_r')).toEqual([]);
    });
  });
}
