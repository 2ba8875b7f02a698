/**
 * Tool parameters mirrored into headers (2026-07-28 Streamable HTTP, "Custom
 * Headers from Tool Parameters"): a property of a tool's input schema marked
 * `x-mcp-header: Name` travels as `Mcp-Param-Name` too, and a server that
 * reads the body must refuse a call whose header is missing, malformed or
 * disagrees with the argument (`header_mismatch`, -32020, 400).
 *
 * What a tool declares is read once per tool object. A declaration that breaks
 * the rules (not a token, repeated, on a non-primitive, behind anything but
 * `properties`) declares nothing; clients drop such tools from their lists.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { type HeaderBag, headerValue, PARAM_HEADER_PREFIX } from './http-exchange.ts';
import { decodeHeaderValue } from './standard-headers.ts';

interface ParamHeader {
  /** Lowercase, as Node gives header names. */
  header: string;
  /** The chain of `properties` keys to the value. */
  path: readonly string[];
  type: 'string' | 'integer' | 'boolean';
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const declared = new WeakMap<object, readonly ParamHeader[]>();

/** The headers a tool's input schema declares (empty for almost every tool). */
export function paramHeadersOf(tool: Pick<Tool, 'inputSchema'>): readonly ParamHeader[] {
  let headers = declared.get(tool.inputSchema);
  if (headers === undefined) {
    headers = collect(tool.inputSchema) ?? [];
    declared.set(tool.inputSchema, headers);
  }
  return headers;
}

/** Refuses a call whose `Mcp-Param-*` headers do not say what its arguments say. */
export function checkParamHeaders(
  tool: Pick<Tool, 'inputSchema'>,
  headers: HeaderBag,
  args: Record<string, unknown> | undefined,
): void {
  for (const param of paramHeadersOf(tool)) {
    const value = valueAt(args, param.path);
    const sent = headerValue(headers, param.header);
    if (value === undefined || value === null) {
      if (sent !== undefined) throw mismatch(param, 'is sent but the argument is absent');
      continue;
    }
    if (sent === undefined) throw mismatch(param, 'is required: the argument is present');
    const decoded = decodeHeaderValue(sent.trim());
    if (decoded === undefined) throw mismatch(param, 'is not a valid header value');
    if (!agrees(param.type, decoded, value)) throw mismatch(param, 'does not match the argument');
  }
}

function agrees(type: ParamHeader['type'], sent: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return sent === value;
    case 'boolean':
      return sent === String(value);
    case 'integer':
      // Compared as numbers: `42.0` and `42` agree.
      return sent.trim() !== '' && Number(sent) === value;
  }
}

function collect(schema: unknown): ParamHeader[] | undefined {
  const found: ParamHeader[] = [];
  const names = new Set<string>();
  const walk = (node: unknown, path: string[]): boolean => {
    if (!isPlainObject(node)) return true;
    const properties = node.properties;
    if (!isPlainObject(properties)) return true;
    for (const [key, property] of Object.entries(properties)) {
      if (!isPlainObject(property)) continue;
      const name = property['x-mcp-header'];
      if (name !== undefined) {
        const type = property.type;
        if (typeof name !== 'string' || !TOKEN.test(name)) return false;
        if (type !== 'string' && type !== 'integer' && type !== 'boolean') return false;
        if (names.has(name.toLowerCase())) return false;
        names.add(name.toLowerCase());
        found.push({
          header: `${PARAM_HEADER_PREFIX}${name.toLowerCase()}`,
          path: [...path, key],
          type,
        });
      }
      if (!walk(property, [...path, key])) return false;
    }
    return true;
  };
  return walk(schema, []) ? found : undefined;
}

function valueAt(args: Record<string, unknown> | undefined, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

function mismatch(param: ParamHeader, problem: string): GatewayError {
  const header = `Mcp-Param-${param.header.slice(PARAM_HEADER_PREFIX.length)}`;
  return new GatewayError('header_mismatch', `Header mismatch: the ${header} header ${problem}`, {
    field: header,
  });
}
