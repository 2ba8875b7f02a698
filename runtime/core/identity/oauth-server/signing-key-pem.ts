/**
 * A signing key given as PEM (`PORTCULLIS_OAUTH_SIGNING_KEY_PEM`): read and
 * checked to be one access tokens may be signed with, an EC P-256 key
 * (ES256) or an RSA key of 2048 bits or more (RS256). Configuration checks a
 * key with this before the start makes anything; the signing keys use it to
 * sign. A refusal says what the key is (its type, size or curve), never a
 * byte of it.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { SigningKey } from '../../model/oauth.ts';

export type SigningAlgorithm = SigningKey['alg'];

export const SIGNING_KEYS_TAKEN =
  'an EC P-256 (ES256) or RSA 2048+ (RS256) private key in PKCS#8 or PKCS#1 PEM';

/** The key and the algorithm it signs with; a `TypeError` saying what the key is when it cannot sign. */
export function signingKeyOfPem(pem: string): { privateKey: KeyObject; alg: SigningAlgorithm } {
  const privateKey = privateKeyOf(pem);
  return { privateKey, alg: algorithmOf(privateKey) };
}

/** What is wrong with the PEM as a signing key (`an RSA key of 1024 bits`), or undefined. */
export function signingKeyPemProblem(pem: string): string | undefined {
  try {
    signingKeyOfPem(pem);
    return undefined;
  } catch (error) {
    if (error instanceof SigningKeyRefused) return error.what;
    throw error;
  }
}

/** ES256 for an EC P-256 key, RS256 for an RSA key of 2048 bits or more; anything else is refused. */
export function algorithmOf(privateKey: KeyObject): SigningAlgorithm {
  const type = privateKey.asymmetricKeyType;
  const details = privateKey.asymmetricKeyDetails;
  if (type === 'ec' && details?.namedCurve === 'prime256v1') return 'ES256';
  if (type === 'rsa' && (details?.modulusLength ?? 0) >= 2048) return 'RS256';
  if (type === 'ec') throw new SigningKeyRefused(`an EC key on curve ${details?.namedCurve}`);
  if (type === 'rsa') throw new SigningKeyRefused(`an RSA key of ${details?.modulusLength} bits`);
  throw new SigningKeyRefused(`an ${type ?? 'unknown'} key`);
}

function privateKeyOf(pem: string): KeyObject {
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(pem)) {
    throw new SigningKeyRefused('an encrypted private key (give it without a passphrase)');
  }
  try {
    return createPrivateKey(pem);
  } catch {
    // The library's message is not repeated: it may quote what it could not read.
    throw new SigningKeyRefused('no private key in PEM');
  }
}

/** Caller misuse (a key that cannot sign access tokens); `what` names the key's kind, never its bytes. */
class SigningKeyRefused extends TypeError {
  readonly what: string;

  constructor(what: string) {
    super(`${what}; expected ${SIGNING_KEYS_TAKEN}`);
    this.what = what;
  }
}
