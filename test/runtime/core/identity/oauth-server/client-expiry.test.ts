/**
 * Registered clients do not pile up: each registration deletes the clients
 * no member approved within a day of registering, and keeps every client a
 * member approved (its consent active), however old. Against a real store
 * and the authorization server, its clock moved by the test.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../../../../runtime/adapters/sql/open-store.ts';
import { AuthorizationServer } from '../../../../../runtime/core/identity/oauth-server/authorization-server.ts';
import { UNAPPROVED_CLIENT_TTL_MS } from '../../../../../runtime/core/identity/oauth-server/client-expiry.ts';
import { createGuardedClient } from '../../../../../runtime/core/outbound/guarded-client.ts';
import { MemorySharedState } from '../../../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import type { Store } from '../../../../../runtime/core/ports/store.ts';
import { CredentialVault } from '../../../../../runtime/core/vault/credential-vault.ts';
import { generateMasterKey, Keyring } from '../../../../../runtime/core/vault/keyring.ts';
import { anAgent, aWorkspace } from '../../../../support/store-fixtures.ts';

let store: Store;
let server: AuthorizationServer;
let now = Date.parse('2026-12-01T10:00:00Z');
const outbound = createGuardedClient({ allowPrivateNetworks: false });

beforeAll(async () => {
  store = await openStore({
    sqliteFile: join(mkdtempSync(join(tmpdir(), 'portcullis-client-expiry-')), 'store.sqlite'),
  });
  server = await AuthorizationServer.open({
    issuer: 'https://gw.example',
    store,
    state: new MemorySharedState(),
    vault: new CredentialVault(new Keyring(generateMasterKey())),
    outbound,
    now: () => new Date(now),
  });
});
afterAll(async () => {
  await outbound.close();
  await store?.close();
});

async function registered(name: string): Promise<string> {
  const reply = await server.register(
    { client_name: name, redirect_uris: ['https://app.example/callback'] },
    `192.0.2.${Math.floor(Math.random() * 250)}`,
  );
  expect(reply.status).toBe(201);
  return (JSON.parse(String(reply.body)) as { client_id: string }).client_id;
}

it('deletes a client no one approved within a day, at the next registration; keeps an approved one', async () => {
  const unapproved = await registered('never approved');
  const approved = await registered('approved');
  await store.workspaces.create(aWorkspace());
  await store.agents.create(anAgent(), 'hash_agent');
  await store.oauth.members.create(
    { id: 'mem_1', workspaceId: 'ws_1', name: 'ada', role: 'member', createdAt: '', updatedAt: '' },
    'scrypt$hash',
  );
  const at = new Date(now).toISOString();
  await store.oauth.consents.put({
    id: 'con_1',
    workspaceId: 'ws_1',
    memberId: 'mem_1',
    clientId: approved,
    clientName: 'approved',
    agentId: 'agt_1',
    scopes: ['tools:read'],
    status: 'active',
    createdAt: at,
    updatedAt: at,
    revokedAt: null,
  });

  // Within the day, a registration deletes nothing.
  now += UNAPPROVED_CLIENT_TTL_MS - 60_000;
  await registered('within the day');
  expect(await store.oauth.clients.byId(unapproved)).toBeDefined();

  now += 120_000;
  const latest = await registered('a day later');
  expect(await store.oauth.clients.byId(unapproved)).toBeUndefined();
  expect(await store.oauth.clients.byId(approved)).toBeDefined();
  expect(await store.oauth.clients.byId(latest)).toBeDefined();
  const [expired] = await store.audit.query({ action: 'oauth.client.expire', limit: 1 });
  expect(expired).toMatchObject({ decision: 'allowed', outcome: 'ok', subject: '1 expired' });

  // A client deleted is an unknown one: the authorization endpoint says so on a page.
  const page = await server.authorize(
    new URLSearchParams({
      response_type: 'code',
      client_id: unapproved,
      redirect_uri: 'https://app.example/callback',
    }),
  );
  expect(page.status).toBe(400);
});
