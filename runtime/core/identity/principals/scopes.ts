/**
 * Scopes follow the action classes: `tools:read`, `tools:write` and
 * `tools:destructive`, each optionally narrowed to one connection
 * (`tools:write:staging`). A token's scopes only narrow what its agent's
 * grants and policies allow: a scope never makes an action callable.
 */
import type { Classification } from '../../../../generated/catalog-format.ts';
import { CONNECTION_NAME_PATTERN } from '../../governance/tool-names.ts';
import type { TokenScopes } from './principals.ts';

export const CLASSES: readonly Classification[] = ['read', 'write', 'destructive'];

/** The scopes advertised in the metadata documents. */
export const SCOPES_SUPPORTED: readonly string[] = CLASSES.map((c) => `tools:${c}`);

/** What a client gets when it asks for nothing: reads, and a step-up for the rest. */
export const DEFAULT_SCOPE = 'tools:read';

const CONNECTION = CONNECTION_NAME_PATTERN.source.replace(/^\^|\$$/g, '');
const SCOPE_PATTERN = new RegExp(`^tools:(read|write|destructive)(?::(${CONNECTION}))?$`);

/** The scope a class of action needs, as a tool declares it. */
export function scopeFor(classification: Classification): string {
  return `tools:${classification}`;
}

export function isKnownScope(scope: string): boolean {
  return SCOPE_PATTERN.test(scope);
}

/**
 * The scopes of a `scope` parameter (RFC 6749 §3.3), in a stable order and
 * without repeats; the first unknown one when there is one.
 */
export function parseScope(text: string | undefined): { scopes: string[] } | { unknown: string } {
  const words = (text ?? '').split(' ').filter((word) => word !== '');
  for (const word of words) if (!isKnownScope(word)) return { unknown: word };
  return { scopes: [...new Set(words)].sort() };
}

/** Whether the scopes let an action of this class through on this connection. */
export function scopesAllow(
  scopes: TokenScopes,
  classification: Classification,
  connectionName: string,
): boolean {
  const base = scopeFor(classification);
  return scopes.has(base) || scopes.has(`${base}:${connectionName}`);
}

/** The class a scope is of (`read`, `write`, `destructive`); undefined for no scope of ours. */
export function classOf(scope: string): Classification | undefined {
  return SCOPE_PATTERN.exec(scope)?.[1] as Classification | undefined;
}

/** The one connection a scope is narrowed to (`tools:write:staging`); undefined for any. */
export function connectionOf(scope: string): string | undefined {
  return SCOPE_PATTERN.exec(scope)?.[2];
}

/** Scopes in the order a person reads them: reads first, destructive last, then by connection. */
export function inClassOrder(scopes: Iterable<string>): string[] {
  const rank = (scope: string) => CLASSES.indexOf(classOf(scope) ?? 'destructive');
  return [...scopes].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The plain words the consent page shows for a scope. */
export function describeScope(scope: string): string {
  const match = SCOPE_PATTERN.exec(scope);
  if (!match) return scope;
  const where = match[2] === undefined ? 'any connection' : `the connection ${match[2]}`;
  switch (match[1]) {
    case 'read':
      return `Read: call the read-only tools you are allowed on ${where} (list, get, show).`;
    case 'write':
      return `Write: call tools that create or change things on ${where}.`;
    default:
      return `Destructive: call tools that delete, stop or revoke things on ${where}.`;
  }
}

/**
 * The scopes of a token for one connection's endpoint (`aud` is
 * `/mcp/c/<connection>`): each becomes that connection's, and one narrowed
 * to another connection is dropped, so the token acts on that connection only.
 */
export function narrowToConnection(scopes: Iterable<string>, connectionName: string): Set<string> {
  const narrowed = new Set<string>();
  for (const scope of scopes) {
    const match = SCOPE_PATTERN.exec(scope);
    if (!match || (match[2] !== undefined && match[2] !== connectionName)) continue;
    narrowed.add(`tools:${match[1]}:${connectionName}`);
  }
  return narrowed;
}

/** Whether a name can be a connection's (what `/mcp/c/<name>` may hold). */
export function isConnectionName(name: string): boolean {
  return CONNECTION_NAME_PATTERN.test(name);
}
