/**
 * Keys and tokens: high-entropy random strings, shown once, stored only as
 * their sha256 (a fast hash is right for 256-bit random keys; a slow password
 * hash would only slow every call down).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sha256Hex } from '../../../generated/catalog-rules.ts';

export const AGENT_KEY_PREFIX = 'pck_';
export const ADMIN_TOKEN_PREFIX = 'pca_';

export function newId(): string {
  return randomUUID();
}

export function newAgentKey(): string {
  return AGENT_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function newAdminToken(): string {
  return ADMIN_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashKey(key: string): string {
  return sha256Hex(key);
}

/** Enough to tell keys apart in a list, not enough to guess one. */
export function keyPrefixOf(key: string): string {
  return key.slice(0, AGENT_KEY_PREFIX.length + 6);
}

/** The bearer token of an `Authorization` header, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(authorization);
  return match?.[1];
}
