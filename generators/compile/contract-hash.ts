/**
 * Contract hashes: sha256 over the RFC 8785 canonical JSON of everything an
 * agent or the executor relies on, so key order in the document never matters
 * and any real change does.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function hashJson(value: unknown): string {
  return sha256Hex(canonicalize(value) ?? 'null');
}
