/**
 * Contract hashes: sha256 over the canonical JSON (RFC 8785) of everything an
 * agent or the executor relies on, so key order in the document never matters
 * and any real change does.
 */
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function hashJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * RFC 8785 serialization of plain JSON data: object keys sorted by code unit,
 * numbers and strings as `JSON.stringify` writes them (which is what RFC 8785
 * specifies), no whitespace. The `canonicalize` package does the same for any
 * JavaScript value (toJSON, boxed primitives, cycles) at two to three times
 * the cost, which is a third of compiling a large document; a test checks the
 * two agree on every action of the pinned catalogs.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += value[i] === undefined ? 'null' : canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  let out = '{';
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}
