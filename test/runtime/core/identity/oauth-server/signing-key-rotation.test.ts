/**
 * A rotation made by another process (the CLI, another replica) reaches a
 * running server: within KEY_REFRESH_MS it signs with the new key and
 * publishes both, without a restart. Two stores over one SQLite file stand
 * for the two processes. A rotation that revokes the old key (a leaked one)
 * reaches a running gateway at once: its next check of a token refuses what
 * the old key signed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openStore } from '../../../../../runtime/adapters/sql/open-store.ts';
import {
  KEY_REFRESH_MS,
  SigningKeys,
  signingKeyFamily,
} from '../../../../../runtime/core/identity/oauth-server/signing-keys.ts';
import type { Store } from '../../../../../runtime/core/ports/store.ts';
import { CredentialVault } from '../../../../../runtime/core/vault/credential-vault.ts';
import {
  forgetPreviousKeys,
  loadKeyring,
  reloadKeyring,
  rotateKeyFile,
} from '../../../../../runtime/core/vault/key-file.ts';
import { generateMasterKey, Keyring } from '../../../../../runtime/core/vault/keyring.ts';
import { startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import {
  codeFor,
  exchange,
  mcpStatus,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const file = join(mkdtempSync(join(tmpdir(), 'portcullis-key-rotation-')), 'store.sqlite');
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

it('signs with a key another process rotated to, within a minute, and still trusts the old one', async () => {
  const keyring = new Keyring(generateMasterKey());
  let now = Date.parse('2026-12-01T10:00:00Z');
  const open = async () => {
    const store = await openStore({ sqliteFile: file });
    stores.push(store);
    return SigningKeys.open({
      store,
      vault: new CredentialVault(keyring),
      now: () => new Date(now),
    });
  };
  const server = await open();
  const cli = await open();
  const first = server.current.kid;
  expect(cli.current.kid).toBe(first);

  const { kid: rotated } = await cli.rotate();
  expect(rotated).not.toBe(first);
  expect(server.current.kid).toBe(first);

  now += KEY_REFRESH_MS + 1;
  void server.current; // a token signed now starts the reload
  await server.settled();
  expect(server.current.kid).toBe(rotated);
  expect(
    server
      .jwks()
      .keys.map((key) => key.kid)
      .sort(),
  ).toEqual([first, rotated].sort());
  expect(await server.publicKeyFor(first)).toBeDefined();
});

it('signs with a key made under a master key another process rotated to (the vault reloads the key file)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-master-rotation-'));
  const storeFile = join(dataDir, 'store.sqlite');
  let now = Date.parse('2026-12-01T10:00:00Z');
  const open = async () => {
    const store = await openStore({ sqliteFile: storeFile });
    stores.push(store);
    const vault = new CredentialVault(loadKeyring(dataDir, undefined).keyring, () =>
      reloadKeyring(dataDir, undefined),
    );
    await vault.recordCurrentKey(store);
    return {
      store,
      vault,
      keys: await SigningKeys.open({ store, vault, now: () => new Date(now) }),
    };
  };
  const server = await open();
  const cli = await open();
  const first = server.keys.current.kid;

  // The command rotates the master key (re-sealing the signing keys), then the signing key.
  const next = rotateKeyFile(dataDir, cli.vault.keyring);
  await cli.store.transaction(async (tx) => {
    await cli.vault.recordRotation(tx, next);
    await signingKeyFamily.reseal(tx, next, new Date(now).toISOString());
  });
  forgetPreviousKeys(dataDir, next);
  const { kid: rotated } = await cli.keys.rotate();
  expect((await cli.store.oauth.signingKeys.list()).map((key) => key.keyId)).toEqual([
    next.current.id,
    next.current.id,
  ]);

  now += KEY_REFRESH_MS + 1;
  void server.keys.current; // a token signed now starts the reload
  await server.keys.settled();
  expect(server.keys.current.kid).toBe(rotated);
  expect(rotated).not.toBe(first);
});

it('refuses at once, on a running server, a token signed with a key the command revoked (`oauth rotate-key --revoke-old`), and stops publishing it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-key-revoke-'));
  const running = await startOAuthGateway({ dataDir });
  try {
    const client = await registerClient(running.url);
    const before = await exchange(running.url, client, await codeFor(running.url, client));
    const oldToken = String(before.body.access_token);
    expect(await mcpStatus(running.url, oldToken)).toBe(200);
    const kidOf = (token: string) =>
      JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string;
    const jwks = async () =>
      (
        (await (await fetch(`${running.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] }
      ).keys.map((key) => key.kid);
    expect(await jwks()).toEqual([kidOf(oldToken)]);

    const revoked = await runPortcullisHere(['oauth', 'rotate-key', '--revoke-old', '--json'], {
      PORTCULLIS_DATA_DIR: dataDir,
    });
    expect(revoked.code).toBe(0);
    const { kid, revoked: kids } = JSON.parse(revoked.stdout);
    expect(kids).toEqual([kidOf(oldToken)]);

    expect(await mcpStatus(running.url, oldToken)).toBe(401);
    expect(await jwks()).toEqual([kid]);
    const after = await exchange(running.url, client, await codeFor(running.url, client));
    expect(kidOf(String(after.body.access_token))).toBe(kid);
    expect(await mcpStatus(running.url, String(after.body.access_token))).toBe(200);
  } finally {
    await running.close();
  }
});
