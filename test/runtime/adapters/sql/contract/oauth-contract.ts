/** The authorization server's rows: members, clients, consents, token families, signing keys. */
import { describe, expect, it } from 'vitest';
import type {
  Consent,
  RefreshToken,
  TokenFamily,
} from '../../../../../runtime/core/model/oauth.ts';
import { anAgent, aWorkspace, reasonOf, T0, T1, T2 } from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

const MEMBER = {
  id: 'mem_1',
  workspaceId: 'ws_1',
  name: 'alice',
  role: 'member' as const,
  createdAt: T0,
  updatedAt: T0,
};

function aConsent(overrides: Partial<Consent> = {}): Consent {
  return {
    id: 'con_1',
    workspaceId: 'ws_1',
    memberId: 'mem_1',
    clientId: 'https://client.example/metadata.json',
    clientName: 'Example',
    agentId: 'agt_1',
    scopes: ['tools:read'],
    status: 'active',
    createdAt: T0,
    updatedAt: T0,
    revokedAt: null,
    ...overrides,
  };
}

function aFamily(overrides: Partial<TokenFamily> = {}): TokenFamily {
  return {
    id: 'fam_1',
    consentId: 'con_1',
    clientId: 'https://client.example/metadata.json',
    scopes: ['tools:read', 'tools:write'],
    resource: 'https://gw.example/mcp',
    status: 'active',
    createdAt: T0,
    expiresAt: T2,
    revokedAt: null,
    ...overrides,
  };
}

function aToken(overrides: Partial<RefreshToken> = {}): RefreshToken {
  return {
    tokenHash: 'hash_1',
    familyId: 'fam_1',
    scopes: ['tools:read', 'tools:write'],
    status: 'active',
    createdAt: T0,
    ...overrides,
  };
}

export function describeOAuthContract(subject: StoreSubject): void {
  async function aMemberWithAnAgent(): Promise<void> {
    const { store } = subject;
    await store.workspaces.create(aWorkspace());
    await store.agents.create(anAgent(), 'hash_agent');
    await store.oauth.members.create(MEMBER, 'scrypt$hash');
  }

  describe('members', () => {
    it('are found by name with their password hash, listed by workspace, and changed', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      expect(await store.oauth.members.byName('alice')).toEqual({
        ...MEMBER,
        passwordHash: 'scrypt$hash',
      });
      expect(await store.oauth.members.list('ws_1')).toEqual([MEMBER]);
      expect(await store.oauth.members.setPassword('mem_1', 'scrypt$new', T1)).toBe(true);
      expect(await store.oauth.members.setRole('mem_1', 'viewer', T1)).toBe(true);
      expect((await store.oauth.members.list('ws_1'))[0]?.role).toBe('viewer');
      expect(await store.oauth.members.setRole('mem_x', 'owner', T1)).toBe(false);
      expect((await store.oauth.members.byName('alice'))?.passwordHash).toBe('scrypt$new');
      expect(await store.oauth.members.setPassword('mem_none', 'x', T1)).toBe(false);
    });

    it('are touched as a governance change (what replicas cached for them is read again)', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      const revision = await store.revision();
      expect(await store.oauth.members.touch('mem_1', T1)).toBe(true);
      expect((await store.oauth.members.byId('mem_1'))?.updatedAt).toBe(T1);
      expect(await store.revision()).toBeGreaterThan(revision);
      expect(await store.oauth.members.touch('mem_none', T1)).toBe(false);
    });

    it('refuse a name taken in any workspace, and a workspace that does not exist', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.workspaces.create(aWorkspace({ id: 'ws_2', name: 'second' }));
      expect(
        await reasonOf(
          store.oauth.members.create({ ...MEMBER, id: 'mem_2', workspaceId: 'ws_2' }, 'h'),
        ),
      ).toEqual({ code: 'conflict', field: 'name' });
      expect(
        await reasonOf(
          store.oauth.members.create(
            { ...MEMBER, id: 'mem_3', name: 'bob', workspaceId: 'ws_x' },
            'h',
          ),
        ),
      ).toEqual({ code: 'not_found', field: 'workspace' });
    });

    it('lose the consents and token families that act as an agent when the agent is removed', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.oauth.consents.put(aConsent());
      await store.oauth.tokens.start(aFamily(), aToken());
      expect(await store.agents.remove('ws_1', 'agt_1')).toBe(true);
      expect(await store.oauth.consents.byId('con_1')).toBeUndefined();
      expect(await store.oauth.tokens.byHash('hash_1')).toBeUndefined();
      expect(await store.oauth.members.list('ws_1')).toHaveLength(1);
    });

    it('take their consents and token families with them when removed', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.oauth.consents.put(aConsent());
      await store.oauth.tokens.start(aFamily(), aToken());
      const before = await store.revision();
      expect(await store.oauth.members.remove('mem_1')).toBe(true);
      expect(await store.revision()).toBeGreaterThan(before);
      expect(await store.oauth.consents.byId('con_1')).toBeUndefined();
      expect(await store.oauth.tokens.byHash('hash_1')).toBeUndefined();
      expect(await store.oauth.members.remove('mem_1')).toBe(false);
    });
  });

  describe('clients', () => {
    it('are stored with their redirect URIs and found by id', async () => {
      const { store } = subject;
      const client = {
        id: 'cli_1',
        name: 'Inspector',
        redirectUris: ['http://127.0.0.1:6274/oauth/callback', 'https://app.example/cb'],
        createdAt: T0,
      };
      const before = await store.revision();
      await store.oauth.clients.create(client);
      expect(await store.revision()).toBe(before);
      expect(await store.oauth.clients.byId('cli_1')).toEqual(client);
      expect(await store.oauth.clients.byId('cli_2')).toBeUndefined();
    });

    it('keep the step-up form an operator chose, a governance change, until unset', async () => {
      const { store } = subject;
      const client = {
        id: 'cli_s',
        name: 'ChatGPT',
        redirectUris: ['https://chatgpt.com/connector/oauth/x'],
        createdAt: T0,
      };
      await store.oauth.clients.create(client);
      const before = await store.revision();
      expect(await store.oauth.clients.setStepUp('cli_s', 'http')).toBe(true);
      expect(await store.revision()).toBeGreaterThan(before);
      expect(await store.oauth.clients.byId('cli_s')).toEqual({ ...client, stepUp: 'http' });
      expect(await store.oauth.clients.setStepUp('cli_s', undefined)).toBe(true);
      expect(await store.oauth.clients.byId('cli_s')).toEqual(client);
      expect(await store.oauth.clients.setStepUp('cli_none', 'result')).toBe(false);
    });

    it('are pruned when never approved in time, or long unused, never while a consent or family lives', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      const client = (id: string, createdAt: string) => ({
        id,
        name: id,
        redirectUris: ['https://app.example/cb'],
        createdAt,
      });
      const OLD = '2026-01-01T00:00:00.000Z';
      const LATE = '2026-03-01T00:00:00.000Z';
      // Registered long ago, approved by nobody: gone.
      await store.oauth.clients.create(client('cli_unapproved', OLD));
      // Registered after the cutoff, not approved yet: kept.
      await store.oauth.clients.create(client('cli_fresh', LATE));
      // Approved long ago, consent still active: kept, however old.
      await store.oauth.clients.create(client('cli_active', OLD));
      await store.oauth.consents.put(aConsent({ id: 'con_a', clientId: 'cli_active' }));
      const revoked = (at: string) => ({
        status: 'revoked' as const,
        updatedAt: at,
        revokedAt: at,
      });
      // Every consent revoked long ago, no family alive: gone.
      await store.oauth.clients.create(client('cli_revoked', OLD));
      await store.oauth.consents.put(
        aConsent({ id: 'con_r', memberId: 'mem_1', clientId: 'cli_revoked', ...revoked(OLD) }),
      );
      // Revoked long ago, but a family of it still live: kept.
      await store.oauth.clients.create(client('cli_family', OLD));
      await store.oauth.members.create({ ...MEMBER, id: 'mem_2', name: 'bob' }, 'h');
      await store.oauth.consents.put(
        aConsent({ id: 'con_f', memberId: 'mem_2', clientId: 'cli_family', ...revoked(OLD) }),
      );
      await store.oauth.tokens.start(
        aFamily({
          id: 'fam_f',
          consentId: 'con_f',
          clientId: 'cli_family',
          expiresAt: '2026-04-01T00:00:00.000Z',
        }),
        aToken({ tokenHash: 'hash_f', familyId: 'fam_f' }),
      );
      // Revoked recently: kept.
      await store.oauth.clients.create(client('cli_recent', OLD));
      await store.oauth.members.create({ ...MEMBER, id: 'mem_3', name: 'carol' }, 'h');
      await store.oauth.consents.put(
        aConsent({ id: 'con_n', memberId: 'mem_3', clientId: 'cli_recent', ...revoked(LATE) }),
      );
      const before = await store.revision();
      expect(
        await store.oauth.clients.prune({
          unapprovedBefore: '2026-02-01T00:00:00.000Z',
          unusedBefore: '2026-02-01T00:00:00.000Z',
          now: '2026-03-02T00:00:00.000Z',
        }),
      ).toBe(2);
      expect(await store.revision()).toBe(before);
      const left = [];
      for (const id of [
        'cli_unapproved',
        'cli_fresh',
        'cli_active',
        'cli_revoked',
        'cli_family',
        'cli_recent',
      ])
        if (await store.oauth.clients.byId(id)) left.push(id);
      expect(left).toEqual(['cli_fresh', 'cli_active', 'cli_family', 'cli_recent']);
      // Their consents stay, as the member's history: only the client is gone.
      expect(await store.oauth.consents.byId('con_r')).toBeDefined();
    });
  });

  describe('consents', () => {
    it('are one per member and client: putting again replaces scopes and status', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.oauth.consents.put(aConsent());
      await store.oauth.consents.put(
        aConsent({ scopes: ['tools:read', 'tools:write'], updatedAt: T1 }),
      );
      expect(await store.oauth.consents.list('ws_1')).toEqual([
        aConsent({ scopes: ['tools:read', 'tools:write'], updatedAt: T1 }),
      ]);
      expect(
        await store.oauth.consents.byMemberAndClient(
          'mem_1',
          'https://client.example/metadata.json',
        ),
      ).toMatchObject({ id: 'con_1' });
      expect(await reasonOf(store.oauth.consents.put(aConsent({ id: 'con_2' })))).toEqual({
        code: 'conflict',
        field: 'client',
      });
    });

    it('revoked, bump the revision and revoke their token families', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.oauth.consents.put(aConsent());
      await store.oauth.tokens.start(aFamily(), aToken());
      const before = await store.revision();
      expect(await store.oauth.consents.revoke('con_1', T1)).toBe(true);
      expect(await store.revision()).toBeGreaterThan(before);
      expect(await store.oauth.consents.byId('con_1')).toMatchObject({
        status: 'revoked',
        revokedAt: T1,
      });
      expect(await store.oauth.tokens.family('fam_1')).toMatchObject({
        status: 'revoked',
        revokedAt: T1,
      });
      await store.oauth.consents.revoke('con_1', T2);
      expect((await store.oauth.consents.byId('con_1'))?.revokedAt).toBe(T1);
    });

    it('refuse an agent that does not exist', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      expect(await reasonOf(store.oauth.consents.put(aConsent({ agentId: 'agt_x' })))).toEqual({
        code: 'not_found',
        field: 'agent',
      });
    });
  });

  describe('refresh tokens', () => {
    it('rotate once: the old one is marked rotated and the next joins its family', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.oauth.consents.put(aConsent());
      const before = await store.revision();
      await store.oauth.tokens.start(aFamily(), aToken());
      expect(await store.oauth.tokens.byHash('hash_1')).toEqual({
        token: aToken(),
        family: aFamily(),
      });
      const next = aToken({ tokenHash: 'hash_2', scopes: ['tools:read'], createdAt: T1 });
      expect(await store.oauth.tokens.rotate('hash_1', next)).toBe(true);
      expect(await store.oauth.tokens.rotate('hash_1', aToken({ tokenHash: 'hash_3' }))).toBe(
        false,
      );
      expect((await store.oauth.tokens.byHash('hash_1'))?.token.status).toBe('rotated');
      expect((await store.oauth.tokens.byHash('hash_2'))?.token).toEqual(next);
      expect(await store.oauth.tokens.byHash('hash_3')).toBeUndefined();
      expect(await store.revision()).toBe(before);
    });

    it('of a revoked family stay readable as revoked, and the revocation bumps the revision', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.oauth.consents.put(aConsent());
      await store.oauth.tokens.start(aFamily(), aToken());
      const before = await store.revision();
      expect(await store.oauth.tokens.revokeFamily('fam_1', T1)).toBe(true);
      expect(await store.revision()).toBeGreaterThan(before);
      expect((await store.oauth.tokens.byHash('hash_1'))?.family.status).toBe('revoked');
      expect(await store.oauth.tokens.revokeFamily('fam_1', T2)).toBe(false);
    });

    it('are pruned with their family once it expired or was revoked before the date given', async () => {
      const { store } = subject;
      await aMemberWithAnAgent();
      await store.oauth.consents.put(aConsent());
      await store.oauth.tokens.start(
        aFamily({ id: 'fam_old', expiresAt: T1 }),
        aToken({ familyId: 'fam_old' }),
      );
      await store.oauth.tokens.start(
        aFamily({ id: 'fam_revoked' }),
        aToken({ tokenHash: 'hash_r', familyId: 'fam_revoked' }),
      );
      await store.oauth.tokens.revokeFamily('fam_revoked', T0);
      await store.oauth.tokens.start(
        aFamily({ id: 'fam_live' }),
        aToken({ tokenHash: 'hash_l', familyId: 'fam_live' }),
      );
      const before = await store.revision();
      expect(await store.oauth.tokens.prune(T1)).toBe(1);
      expect(await store.oauth.tokens.family('fam_revoked')).toBeUndefined();
      expect(await store.oauth.tokens.byHash('hash_r')).toBeUndefined();
      expect(await store.oauth.tokens.prune(T2)).toBe(1);
      expect(await store.oauth.tokens.byHash('hash_1')).toBeUndefined();
      expect((await store.oauth.tokens.byHash('hash_l'))?.family.status).toBe('active');
      expect(await store.revision()).toBe(before);
    });
  });

  describe('assertion jtis', () => {
    it('are recorded once until they expire, and forgotten only as recorded', async () => {
      const jtis = subject.store.oauth.assertionJtis;
      expect(await jtis.record('jti_1', T2, T0)).toBe(true);
      expect(await jtis.record('jti_1', T2, T0)).toBe(false);
      // Another record's expiry: not the one kept, nothing forgotten.
      await jtis.forget('jti_1', T1);
      expect(await jtis.record('jti_1', T2, T0)).toBe(false);
      await jtis.forget('jti_1', T2);
      expect(await jtis.record('jti_1', T2, T0)).toBe(true);
      // Past its expiry it is deleted on the way, and may be recorded anew.
      expect(await jtis.record('jti_1', T2, T2)).toBe(true);
    });
  });

  describe('signing keys', () => {
    it('are listed newest first, retired and resealed', async () => {
      const { store } = subject;
      const key = {
        kid: 'k1',
        alg: 'ES256' as const,
        publicJwk: '{"kty":"EC"}',
        sealedPrivate: 'v1.a.b.c.d',
        keyId: 'a',
        createdAt: T0,
        retiredAt: null,
      };
      await store.oauth.signingKeys.create(key);
      await store.oauth.signingKeys.create({ ...key, kid: 'k2', createdAt: T1 });
      expect((await store.oauth.signingKeys.list()).map((k) => k.kid)).toEqual(['k2', 'k1']);
      expect(await store.oauth.signingKeys.retire('k1', T1)).toBe(true);
      await store.oauth.signingKeys.reseal('k1', 'v1.e.f.g.h', 'e');
      expect((await store.oauth.signingKeys.list())[1]).toEqual({
        ...key,
        sealedPrivate: 'v1.e.f.g.h',
        keyId: 'e',
        retiredAt: T1,
      });
      const revision = await store.revision();
      expect(await store.oauth.signingKeys.remove('k1')).toBe(true);
      expect(await store.revision()).toBeGreaterThan(revision);
      expect(await store.oauth.signingKeys.remove('k1')).toBe(false);
      expect((await store.oauth.signingKeys.list()).map((k) => k.kid)).toEqual(['k2']);
    });
  });

  it('keeps everything across a reopen (a restart)', async () => {
    await aMemberWithAnAgent();
    await subject.store.oauth.consents.put(aConsent());
    await subject.store.oauth.tokens.start(aFamily(), aToken());
    const again = await subject.open();
    expect(await again.oauth.members.byName('alice')).toMatchObject({ id: 'mem_1' });
    expect(await again.oauth.tokens.byHash('hash_1')).toMatchObject({ family: { id: 'fam_1' } });
    await subject.close(again);
  });
}
