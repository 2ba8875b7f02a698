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
import { KEY_REFRESH_MS, SigningKeys } from '../../../runtime/core/oauth-server/signing-keys.ts';
import type { Store } from '../../../runtime/core/store/store.ts';
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
    return SigningKeys.open({ store, keyring: () => keyring, now: () => new Date(now) });
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
