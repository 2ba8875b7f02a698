import { describe, expect, it } from 'vitest';
import { generateMasterKey, Keyring, masterKey } from '../../../../runtime/core/vault/keyring.ts';
import {
  openSecret,
  resealSecret,
  sealedKeyId,
  sealSecret,
} from '../../../../runtime/core/vault/sealed-secret.ts';
import type { VaultError } from '../../../../runtime/core/vault/vault-error.ts';
import { reasonOf } from '../../../support/reason.ts';

const SECRET = 'ukc_live_canary_5f1e2d';
const PLACE = 'ws_1/conn_unikraft/token';

describe('sealed secrets', () => {
  const keyring = new Keyring(generateMasterKey());

  it('open to the plaintext, which never appears in the sealed form', () => {
    const sealed = sealSecret(SECRET, keyring, PLACE);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).toMatch(/^v1\.[0-9a-f]{16}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(openSecret(sealed, keyring, PLACE)).toBe(SECRET);
  });

  it('use a fresh nonce each time', () => {
    expect(sealSecret(SECRET, keyring, PLACE)).not.toBe(sealSecret(SECRET, keyring, PLACE));
  });

  it('do not open in another place (a ciphertext copied to another row)', () => {
    const sealed = sealSecret(SECRET, keyring, PLACE);
    expect(reasonOf(() => openSecret(sealed, keyring, 'ws_2/conn_unikraft/token')).code).toBe(
      'vault_secret_unauthentic',
    );
  });

  it('refuse a flipped bit, naming neither secret nor key', () => {
    const parts = sealSecret(SECRET, keyring, PLACE).split('.');
    const ciphertext = Buffer.from(parts[3]!, 'base64url');
    ciphertext[0] = ciphertext[0]! ^ 1;
    parts[3] = ciphertext.toString('base64url');
    let refused: VaultError | undefined;
    try {
      openSecret(parts.join('.'), keyring, PLACE);
    } catch (error) {
      refused = error as VaultError;
    }
    expect(refused?.code).toBe('vault_secret_unauthentic');
    const message = refused?.message ?? '';
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(keyring.current.bytes.toString('base64'));
  });

  it('refuse what is not in the sealed format, and keys that are not loaded', () => {
    expect(reasonOf(() => openSecret('plaintext', keyring, PLACE)).code).toBe(
      'vault_secret_malformed',
    );
    const other = new Keyring(generateMasterKey());
    expect(reasonOf(() => openSecret(sealSecret(SECRET, other, PLACE), keyring, PLACE)).code).toBe(
      'vault_key_unknown',
    );
  });
});

describe('master key rotation', () => {
  it('opens old secrets after a rotation, and re-seals them under the new key', () => {
    const old = new Keyring(generateMasterKey());
    const sealed = sealSecret(SECRET, old, PLACE);
    const rotated = old.rotatedTo(generateMasterKey());

    expect(openSecret(sealed, rotated, PLACE)).toBe(SECRET);
    const resealed = resealSecret(sealed, rotated, PLACE);
    expect(sealedKeyId(resealed)).toBe(rotated.current.id);
    expect(openSecret(resealed, new Keyring(rotated.current), PLACE)).toBe(SECRET);
    expect(resealSecret(resealed, rotated, PLACE)).toBe(resealed);
  });

  it('derives a stable key id from the key, and refuses keys of the wrong size', () => {
    const bytes = Buffer.alloc(32, 7);
    expect(masterKey(bytes).id).toBe(masterKey(Buffer.from(bytes)).id);
    expect(masterKey(bytes).id).not.toBe(masterKey(Buffer.alloc(32, 8)).id);
    expect(() => masterKey(Buffer.alloc(16))).toThrow(TypeError);
  });
});
