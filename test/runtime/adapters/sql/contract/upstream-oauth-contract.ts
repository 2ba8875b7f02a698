/**
 * Signing in to remote MCP servers (0007): a connection's discovery and
 * client with its binding, each credential's tokens and sign-in state (no
 * revision bump: a refresh is not governance), and sign-ins that are taken
 * once, bound to one browser once, pruned when expired, and gone with their
 * connection.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RemoteEndpoint } from '../../../../../runtime/core/model/remote.ts';
import type {
  StoredClient,
  StoredSignIn,
  StoredTokens,
} from '../../../../../runtime/core/model/sign-in.ts';
import { aConnection, aWorkspace, T0, T1 } from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

const oauthEndpoint: RemoteEndpoint = {
  connectionId: 'conn_o',
  workspaceId: 'ws_1',
  url: 'https://mcp.example.com/mcp',
  transport: 'streamable-http',
  revision: null,
  authKind: 'oauth',
  headerNames: [],
  serverInfo: null,
  features: null,
  draft: 'sign_in_needed',
  classificationOverrides: {},
  toolsExpireAt: null,
  oauth: {
    issuer: 'https://auth.example.com/tenant/a',
    resource: 'https://mcp.example.com/mcp',
    resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    scopes: ['mcp:tools'],
    metadata: {
      issuer: 'https://auth.example.com/tenant/a',
      authorization_endpoint: 'https://auth.example.com/tenant/a/auth',
      token_endpoint: 'https://auth.example.com/tenant/a/token',
    },
    omitResource: false,
  },
  updatedAt: T0,
};

const client: StoredClient = {
  workspaceId: 'ws_1',
  connectionId: 'conn_o',
  binding: {
    issuer: 'https://auth.example.com/tenant/a',
    resource: 'https://mcp.example.com/mcp',
    redirectUri: 'https://gw.example.com/connect/oauth/callback',
    workspaceId: 'ws_1',
  },
  clientId: 'client-1',
  source: 'dcr',
  authMethod: 'none',
  sealedSecret: null,
  keyId: null,
  obtainedAt: T0,
  secretExpiresAt: null,
};

function tokens(overrides: Partial<StoredTokens> = {}): StoredTokens {
  return {
    workspaceId: 'ws_1',
    connectionId: 'conn_o',
    agentId: null,
    sealed: 'v1.k.sealed',
    keyId: 'k',
    signInRequired: null,
    updatedAt: T0,
    ...overrides,
  };
}

function signIn(overrides: Partial<StoredSignIn> = {}): StoredSignIn {
  return {
    stateHash: 'hash-1',
    workspaceId: 'ws_1',
    connectionId: 'conn_o',
    agentId: null,
    actor: 'cli',
    browserHash: null,
    sealed: 'v1.k.pending',
    keyId: 'k',
    host: 'auth.example.com',
    expiresAt: T1,
    createdAt: T0,
    ...overrides,
  };
}

export function describeUpstreamOAuthContract(subject: StoreSubject): void {
  describe('upstream OAuth rows', () => {
    beforeEach(async () => {
      await subject.store.workspaces.create(aWorkspace());
      await subject.store.connections.create(
        aConnection({ id: 'conn_o', name: 'signed', provider: 'remote-mcp', settings: {} }),
      );
    });

    it('keep what discovery found on the endpoint record', async () => {
      await subject.store.remoteEndpoints.put(oauthEndpoint);
      expect(await subject.store.remoteEndpoints.byConnection('conn_o')).toEqual(oauthEndpoint);
    });

    it('keep one client per connection with its binding, replaced whole', async () => {
      const { store } = subject;
      await store.upstreamOAuth.clients.put(client);
      const rebound = { ...client, clientId: 'client-2', sealedSecret: 'v1.k.s', keyId: 'k' };
      await store.upstreamOAuth.clients.put(rebound);
      expect(await store.upstreamOAuth.clients.byConnection('conn_o')).toEqual(rebound);
      expect(await store.upstreamOAuth.clients.remove('conn_o')).toBe(true);
      expect(await store.upstreamOAuth.clients.byConnection('conn_o')).toBeUndefined();
    });

    it("keep each credential's tokens apart, without moving the revision", async () => {
      const { store } = subject;
      await store.agents.create(
        {
          id: 'agt_1',
          workspaceId: 'ws_1',
          name: 'a',
          keyPrefix: 'pc_',
          status: 'active',
          createdAt: T0,
          revokedAt: null,
          memberId: null,
          toolsMode: null,
        },
        'hash',
      );
      const before = await store.revision();
      await store.upstreamOAuth.tokens.put(tokens());
      await store.upstreamOAuth.tokens.put(tokens({ agentId: 'agt_1', sealed: 'v1.k.personal' }));
      await store.upstreamOAuth.tokens.put(
        tokens({ sealed: null, keyId: null, signInRequired: 'invalid_grant', updatedAt: T1 }),
      );
      expect(await store.revision()).toBe(before);
      expect(await store.upstreamOAuth.tokens.get('conn_o', null)).toEqual(
        tokens({ sealed: null, keyId: null, signInRequired: 'invalid_grant', updatedAt: T1 }),
      );
      expect(
        (await store.upstreamOAuth.tokens.forConnection('conn_o')).map((t) => t.agentId),
      ).toEqual([null, 'agt_1']);
    });

    it('take a sign-in exactly once, and bind it to one browser once', async () => {
      const { store } = subject;
      await store.upstreamOAuth.signIns.create(signIn());
      expect(await store.upstreamOAuth.signIns.bindBrowser('hash-1', 'browser-a')).toBe(true);
      expect(await store.upstreamOAuth.signIns.bindBrowser('hash-1', 'browser-b')).toBe(false);
      expect((await store.upstreamOAuth.signIns.byState('hash-1'))?.browserHash).toBe('browser-a');
      const takes = await Promise.all([
        store.upstreamOAuth.signIns.take('hash-1'),
        store.upstreamOAuth.signIns.take('hash-1'),
      ]);
      expect(takes.filter((t) => t !== undefined)).toHaveLength(1);
      expect(await store.upstreamOAuth.signIns.take('hash-1')).toBeUndefined();
    });

    it("list a workspace's live sign-ins, oldest first, without the expired ones", async () => {
      const { store } = subject;
      await store.upstreamOAuth.signIns.create(signIn({ stateHash: 'old', expiresAt: T0 }));
      await store.upstreamOAuth.signIns.create(
        signIn({ stateHash: 'b', expiresAt: T1, createdAt: T1 }),
      );
      await store.upstreamOAuth.signIns.create(
        signIn({ stateHash: 'a', expiresAt: T1, createdAt: T0 }),
      );
      const live = await store.upstreamOAuth.signIns.liveIn('ws_1', T0);
      expect(live.map((s) => s.stateHash)).toEqual(['a', 'b']);
      expect(await store.upstreamOAuth.signIns.liveIn('ws_other', T0)).toEqual([]);
    });

    it('prune expired sign-ins, and lose every row with their connection', async () => {
      const { store } = subject;
      await store.upstreamOAuth.signIns.create(signIn({ stateHash: 'old', expiresAt: T0 }));
      await store.upstreamOAuth.signIns.create(signIn({ stateHash: 'new', expiresAt: T1 }));
      expect(await store.upstreamOAuth.signIns.prune(T1)).toBe(1);
      await store.upstreamOAuth.clients.put(client);
      await store.upstreamOAuth.tokens.put(tokens());
      await store.connections.remove('ws_1', 'conn_o');
      expect(await store.upstreamOAuth.signIns.byState('new')).toBeUndefined();
      expect(await store.upstreamOAuth.clients.byConnection('conn_o')).toBeUndefined();
      expect(await store.upstreamOAuth.tokens.get('conn_o', null)).toBeUndefined();
    });

    it('list every sealed secret for a master key rotation, and re-seal one only while it is what was read', async () => {
      const { store } = subject;
      await store.connections.create(
        aConnection({ id: 'conn_p', name: 'public', provider: 'remote-mcp', settings: {} }),
      );
      await store.agents.create(
        {
          id: 'agt_1',
          workspaceId: 'ws_1',
          name: 'a',
          keyPrefix: 'pc_',
          status: 'active',
          createdAt: T0,
          revokedAt: null,
          memberId: null,
          toolsMode: null,
        },
        'hash',
      );
      const secret = { ...client, sealedSecret: 'v1.k.secret', keyId: 'k' };
      await store.upstreamOAuth.clients.put(secret);
      await store.upstreamOAuth.clients.put({ ...client, connectionId: 'conn_p' });
      await store.upstreamOAuth.tokens.put(tokens({ agentId: 'agt_1', sealed: 'v1.k.personal' }));
      await store.upstreamOAuth.tokens.put(tokens());
      await store.upstreamOAuth.tokens.put(
        tokens({ connectionId: 'conn_p', sealed: null, keyId: null, signInRequired: 'signed_out' }),
      );
      await store.upstreamOAuth.signIns.create(signIn({ stateHash: 'hash-b' }));
      await store.upstreamOAuth.signIns.create(signIn({ stateHash: 'hash-a' }));
      const before = await store.revision();

      // Only rows that hold a secret; in a fixed order.
      expect(await store.upstreamOAuth.clients.sealed()).toEqual([secret]);
      expect(await store.upstreamOAuth.tokens.sealed()).toEqual([
        tokens(),
        tokens({ agentId: 'agt_1', sealed: 'v1.k.personal' }),
      ]);
      expect((await store.upstreamOAuth.signIns.all()).map((s) => s.stateHash)).toEqual([
        'hash-a',
        'hash-b',
      ]);

      const to = { sealed: 'v1.n.new', keyId: 'n' };
      expect(await store.upstreamOAuth.clients.reseal('conn_o', 'v1.k.secret', to)).toBe(true);
      expect(await store.upstreamOAuth.tokens.reseal('conn_o', 'agt_1', 'v1.k.personal', to)).toBe(
        true,
      );
      expect(await store.upstreamOAuth.signIns.reseal('hash-a', 'v1.k.pending', to)).toBe(true);
      expect(await store.upstreamOAuth.clients.byConnection('conn_o')).toEqual({
        ...secret,
        sealedSecret: to.sealed,
        keyId: 'n',
      });
      expect(await store.upstreamOAuth.tokens.get('conn_o', 'agt_1')).toEqual(
        tokens({ agentId: 'agt_1', sealed: to.sealed, keyId: 'n' }),
      );
      expect(await store.upstreamOAuth.tokens.get('conn_o', null)).toEqual(tokens());
      expect(await store.upstreamOAuth.signIns.byState('hash-a')).toEqual(
        signIn({ stateHash: 'hash-a', sealed: to.sealed, keyId: 'n' }),
      );
      expect(await store.upstreamOAuth.signIns.byState('hash-b')).toEqual(
        signIn({ stateHash: 'hash-b' }),
      );
      expect(await store.revision()).toBe(before);

      // Changed since it was read (forgotten, replaced, taken): left as it is now.
      await store.upstreamOAuth.tokens.put(
        tokens({ sealed: null, keyId: null, signInRequired: 'signed_out' }),
      );
      expect(await store.upstreamOAuth.tokens.reseal('conn_o', null, 'v1.k.sealed', to)).toBe(
        false,
      );
      expect((await store.upstreamOAuth.tokens.get('conn_o', null))?.sealed).toBeNull();
      expect(await store.upstreamOAuth.clients.reseal('conn_o', 'v1.k.secret', to)).toBe(false);
      await store.upstreamOAuth.signIns.take('hash-b');
      expect(await store.upstreamOAuth.signIns.reseal('hash-b', 'v1.k.pending', to)).toBe(false);
      expect(await store.upstreamOAuth.signIns.byState('hash-b')).toBeUndefined();
    });
  });
}
