/**
 * A rotation made by another process (the CLI, another replica) reaches a
 * running server: within KEY_REFRESH_MS it signs with the new key and
 * publishes both, without a restart. Two stores over one SQLite file stand
 * for the two processes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  KEY_REFRESH_MS,
  SigningKeys,
  signingKeyFamily,
} from '../../../runtime/core/oauth-server/signing-keys.ts';
import type { Store } from '../../../runtime/core/store/store.ts';
import { CredentialVault } from '../../../runtime/core/vault/credential-vault.ts';
import {
  forgetPreviousKeys,
  loadKeyring,
  reloadKeyring,
  rotateKeyFile,
} from '../../../runtime/core/vault/key-file.ts';
import { generateMasterKey, Keyring } from '../../../runtime/core/vault/keyring.ts';
import { openStore } from '../../../runtime/store/open-store.ts';

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

  const rotated = await cli.rotate();
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
  const rotated = await cli.keys.rotate();
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
