/** Remote MCP endpoint records and pinned tool lists: kept, replaced, and removed with their connection. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RemoteEndpoint, RemoteTool } from '../../../../runtime/core/remote/remote-model.ts';
import type { StoreSubject } from '../store-contract.ts';
import { aConnection, aWorkspace, reasonOf, T0, T1 } from '../store-fixtures.ts';

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

    it('go with their connection', async () => {
      const { store } = subject;
      await store.remoteEndpoints.put(anEndpoint());
      await store.remoteTools.replace({ id: 'conn_r', workspaceId: 'ws_1' }, [aTool('alpha')]);
      expect(await store.connections.remove('ws_1', 'conn_r')).toBe(true);
      expect(await store.remoteEndpoints.byConnection('conn_r')).toBeUndefined();
      expect(await store.remoteTools.forConnection('conn_r')).toEqual([]);
    });
  });
}
