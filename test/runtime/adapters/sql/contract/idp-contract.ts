/** The company's identity providers and the identities members are known by at them (migration 0023). */
import { describe, expect, it } from 'vitest';
import type {
  IdentityProvider,
  MemberIdentity,
} from '../../../../../runtime/core/model/identity.ts';
import { aConnection, aWorkspace, reasonOf, T0, T1 } from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

const MEMBER = {
  id: 'mem_1',
  workspaceId: 'ws_1',
  name: 'carol',
  role: 'operator' as const,
  createdAt: T0,
  updatedAt: T0,
};

function aProvider(overrides: Partial<IdentityProvider> = {}): IdentityProvider {
  return {
    id: 'idp_1',
    workspaceId: 'ws_1',
    name: 'acme',
    issuer: 'https://login.acme.example/tenant',
    clientId: 'portcullis',
    clientSecretEnv: 'PORTCULLIS_IDP_ACME_SECRET',
    only: false,
    nameClaim: 'preferred_username',
    scopes: 'openid profile email',
    groupsClaim: null,
    role: 'member',
    createdAt: T0,
    idJag: false,
    ...overrides,
  };
}

function anIdentity(overrides: Partial<MemberIdentity> = {}): MemberIdentity {
  return {
    issuer: 'https://login.acme.example/tenant',
    subject: '00u1',
    memberId: 'mem_1',
    providerName: 'acme',
    createdAt: T0,
    lastSignInAt: T0,
    ...overrides,
  };
}

export function describeIdpContract(subject: StoreSubject): void {
  describe('identity providers', () => {
    it('are added, found by name, listed and removed; a name or an issuer is taken once', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      const acme = aProvider({ only: true, groupsClaim: 'groups', role: 'viewer' });
      await store.identity.addProvider(acme);
      expect(await store.identity.providerByName('acme')).toEqual(acme);
      await expect(
        reasonOf(store.identity.addProvider(aProvider({ id: 'idp_2', issuer: 'https://other' }))),
      ).resolves.toMatchObject({ code: 'conflict', field: 'name' });
      await expect(
        reasonOf(store.identity.addProvider(aProvider({ id: 'idp_2', name: 'other' }))),
      ).resolves.toMatchObject({ code: 'conflict', field: 'issuer' });
      const other = aProvider({ id: 'idp_2', name: 'globex', issuer: 'https://globex.example' });
      await store.identity.addProvider(other);
      expect(await store.identity.providers()).toEqual([acme, other]);
      expect(await store.identity.removeProvider('idp_1')).toBe(true);
      expect(await store.identity.providerByName('acme')).toBeUndefined();
    });
  });

  describe('member identities', () => {
    it('are found by issuer and subject, outlive their provider and go with their member', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      await store.identity.addProvider(aProvider());
      await store.oauth.members.create(MEMBER, 'idp');
      await store.identity.addIdentity(anIdentity());
      // The same subject at another issuer is another identity.
      await store.oauth.members.create({ ...MEMBER, id: 'mem_2', name: 'carol-2' }, 'idp');
      await store.identity.addIdentity(
        anIdentity({ issuer: 'https://globex.example', memberId: 'mem_2' }),
      );
      await expect(
        reasonOf(store.identity.addIdentity(anIdentity({ memberId: 'mem_2' }))),
      ).resolves.toMatchObject({ code: 'conflict', field: 'subject' });
      await store.identity.signedIn('https://login.acme.example/tenant', '00u1', T1);
      expect(await store.identity.refreshToken('https://login.acme.example/tenant', '00u1')).toBe(
        null,
      );
      await store.identity.setRefreshToken('https://login.acme.example/tenant', '00u1', 'sealed');
      expect(await store.identity.refreshToken('https://login.acme.example/tenant', '00u1')).toBe(
        'sealed',
      );
      expect(await store.identity.identity('https://login.acme.example/tenant', '00u1')).toEqual(
        anIdentity({ lastSignInAt: T1 }),
      );
      expect(await store.oauth.members.byId('mem_2')).toEqual({
        ...MEMBER,
        id: 'mem_2',
        name: 'carol-2',
      });
      await store.identity.removeProvider('idp_1');
      expect(await store.identity.identitiesOf('mem_1')).toHaveLength(1);
      await store.oauth.members.remove('mem_1');
      expect(await store.identity.identity('https://login.acme.example/tenant', '00u1')).toBe(
        undefined,
      );
      expect(await store.identity.identitiesOf('mem_2')).toHaveLength(1);
    });

    it('keep the subject tokens of the identity that signed in last, and forget them', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      await store.oauth.members.create(MEMBER, 'idp');
      await store.identity.addIdentity(anIdentity());
      await store.identity.addIdentity(anIdentity({ issuer: 'https://globex.example' }));
      expect(await store.identity.latestSubjectTokens('mem_1')).toBeUndefined();
      await store.identity.setSubjectTokens('https://login.acme.example/tenant', '00u1', 'at-acme');
      await store.identity.setSubjectTokens('https://globex.example', '00u1', 'at-globex');
      await store.identity.signedIn('https://globex.example', '00u1', T1);
      expect(await store.identity.latestSubjectTokens('mem_1')).toEqual({
        issuer: 'https://globex.example',
        subject: '00u1',
        sealed: 'at-globex',
      });
      await store.identity.setSubjectTokens('https://globex.example', '00u1', null);
      expect((await store.identity.latestSubjectTokens('mem_1'))?.sealed).toBe('at-acme');
    });
  });

  describe('group mappings and what they gave', () => {
    it('are kept by provider and member, replaced by kind and target, and go with either', async () => {
      const { store } = subject;
      await store.workspaces.create(aWorkspace());
      await store.connections.create(aConnection());
      await store.identity.addProvider(aProvider());
      await store.oauth.members.create(MEMBER, 'idp');
      const mapping = {
        id: 'map_1',
        providerId: 'idp_1',
        workspaceId: 'ws_1',
        group: 'eng',
        role: null,
        connectionId: aConnection().id,
        scope: 'reads' as const,
        createdAt: T0,
      };
      await store.identity.addMapping(mapping);
      await store.identity.addMapping({
        ...mapping,
        id: 'map_2',
        role: 'operator',
        connectionId: null,
      });
      expect((await store.identity.mappings('idp_1')).map((m) => m.id)).toEqual(['map_1', 'map_2']);
      const effect = {
        memberId: 'mem_1',
        kind: 'role' as const,
        target: 'operator',
        grantId: null,
        providerName: 'acme',
        group: 'ops',
        appliedAt: T0,
      };
      await store.identity.putEffect(effect);
      await store.identity.putEffect({ ...effect, group: 'admins', appliedAt: T1 });
      expect(await store.identity.effectsOf('mem_1')).toEqual([
        { ...effect, group: 'admins', appliedAt: T1 },
      ]);
      await store.identity.removeEffect('mem_1', 'role', 'operator');
      expect(await store.identity.effectsOf('mem_1')).toEqual([]);
      expect(await store.identity.removeMapping('map_2')).toBe(true);
      await store.identity.removeProvider('idp_1');
      expect(await store.identity.mappings('idp_1')).toEqual([]);
    });
  });
}
