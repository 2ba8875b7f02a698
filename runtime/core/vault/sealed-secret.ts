/**
 * Secrets at rest: AES-256-GCM under a master key, with the key id beside the
 * ciphertext so the key can rotate, and the secret's place (workspace,
 * connection, owner, field) as additional authenticated data, so a ciphertext copied
 * to another row does not open there.
 *
 *   v1.<key id>.<iv>.<ciphertext>.<tag>      (base64url parts)
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from './keyring.ts';
import { VaultError } from './vault-error.ts';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealSecret(plaintext: string, keyring: Keyring, place: string): string {
  const key = keyring.current;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(place, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
  return [VERSION, key.id, ...parts].join('.');
}

export function openSecret(sealed: string, keyring: Keyring, place: string): string {
  const [version, keyId, iv, ciphertext, tag, ...rest] = sealed.split('.');
  if (
    version !== VERSION ||
    !keyId ||
    iv === undefined ||
    ciphertext === undefined ||
    !tag ||
    rest.length > 0
  ) {
    throw new VaultError(
      'vault_secret_malformed',
      'a stored secret is not in the v1 sealed format',
    );
  }
  const key = keyring.keyOrThrow(keyId);
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.byteLength !== IV_BYTES || tagBytes.byteLength !== TAG_BYTES) {
    throw new VaultError('vault_secret_malformed', 'a stored secret has a bad nonce or tag length');
  }
  const decipher = createDecipheriv('aes-256-gcm', key.bytes, ivBytes, {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(place, 'utf8'));
  decipher.setAuthTag(tagBytes);
  try {
    return Buffer.concat([
      decipher.update(Buffer.from(ciphertext, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new VaultError(
      'vault_secret_unauthentic',
      'a stored secret failed authentication: tampered, or sealed for another place',
    );
  }
}

/** The id of the key a sealed secret needs, to find what a rotation must re-seal. */
export function sealedKeyId(sealed: string): string | undefined {
  const [version, keyId] = sealed.split('.');
  return version === VERSION ? keyId : undefined;
}

/** Re-seals under the keyring's current key (a no-op for secrets already under it). */
export function resealSecret(sealed: string, keyring: Keyring, place: string): string {
  if (sealedKeyId(sealed) === keyring.current.id) return sealed;
  return sealSecret(openSecret(sealed, keyring, place), keyring, place);
}
