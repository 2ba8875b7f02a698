/**
 * Schema Object (OpenAPI 3.0 or 3.1) → JSON Schema 2020-12 that ajv compiles in
 * strict mode. Every `$ref` becomes `#/$defs/<key>`; each referenced schema is
 * converted once per document and shared by every action that reaches it, so
 * circular references are just references. Keywords JSON Schema does not know
 * (`discriminator`, `xml`, `x-*`) and values of the wrong shape are dropped.
 */
import { formatNames } from 'ajv-formats/dist/formats.js';
import { byCodeUnit } from '../code-unit-order.ts';
import { OperationError } from '../errors.ts';
import { childPointer, internalRefPointer, valueAt } from './json-pointer.ts';
import type { OpenApiVersion } from './load-document.ts';
import { isObject } from './refs.ts';

export type JsonSchema = boolean | { [keyword: string]: unknown };

/** Standard base64 (RFC 4648 §4), padded: what a `format: binary` string holds in the arguments. */
export const BASE64_PATTERN = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Formats ajv-formats validates; any other format is kept as an annotation. */
const KNOWN_FORMATS: ReadonlySet<string> = new Set(formatNames);

interface Definition {
  schema?: JsonSchema;
  /** Keys of the definitions this one refers to directly. */
  refs: Set<string>;
  failure?: OperationError;
}

export class SchemaConverter {
  readonly #root: unknown;
  readonly #version: OpenApiVersion;
  readonly #definitions = new Map<string, Definition>();
  readonly #keyByPointer = new Map<string, string>();
  readonly #closures = new Map<string, readonly string[]>();
  /** Every format seen that ajv-formats does not know. */
  readonly annotationFormats = new Set<string>();

  constructor(root: unknown, version: OpenApiVersion) {
    this.#root = root;
    this.#version = version;
  }

  /** Converts the schema at `pointer`; the keys of the definitions it refers to are added to `refs`. */
  convert(node: unknown, pointer: string, refs: Set<string>): JsonSchema {
    if (typeof node === 'boolean') return node;
    if (!isObject(node)) return {};
    if (typeof node.$ref === 'string') {
      const ref = { $ref: `#/$defs/${this.#define(node.$ref, pointer)}` };
      refs.add(ref.$ref.slice('#/$defs/'.length));
      // OpenAPI 3.0 ignores the siblings of $ref; 3.1 applies them.
      if (this.#version === '3.0') return ref;
      const siblings = this.#convertKeywords(node, pointer, refs);
      return Object.keys(siblings).length === 0 ? ref : { ...ref, ...siblings };
    }
    return this.#convertKeywords(node, pointer, refs);
  }

  /** A converted definition by key (after `convert` referred to it). */
  definition(key: string): JsonSchema {
    const found = this.#definitions.get(key);
    if (found?.schema === undefined) throw new TypeError(`no definition ${key}`);
    return found.schema;
  }

  /** Every definition reachable from `refs`, sorted by key. */
  closure(refs: Iterable<string>): string[] {
    const reached = new Set<string>();
    for (const key of refs) {
      if (reached.has(key)) continue;
      for (const inner of this.#closureOf(key)) reached.add(inner);
    }
    return [...reached].sort(byCodeUnit);
  }

  #closureOf(key: string): readonly string[] {
    const cached = this.#closures.get(key);
    if (cached) return cached;
    const reached = new Set<string>([key]);
    const stack = [key];
    while (stack.length > 0) {
      const next = this.#definitions.get(stack.pop()!);
      for (const inner of next?.refs ?? []) {
        if (reached.has(inner)) continue;
        const known = this.#closures.get(inner);
        if (known) for (const k of known) reached.add(k);
        else {
          reached.add(inner);
          stack.push(inner);
        }
      }
    }
    const result = [...reached];
    this.#closures.set(key, result);
    return result;
  }

  #define(ref: string, site: string): string {
    const target = internalRefPointer(ref);
    if (target === undefined)
      throw new OperationError('external_ref', site, `$ref "${ref}" points outside the document`);
    let key = this.#keyByPointer.get(target);
    if (key === undefined) {
      key = this.#newKey(target);
      this.#keyByPointer.set(target, key);
      const definition: Definition = { refs: new Set() };
      this.#definitions.set(key, definition);
      const node = valueAt(this.#root, target);
      if (node === undefined) {
        definition.failure = new OperationError(
          'unresolvable_ref',
          site,
          `$ref "${ref}" names nothing in the document`,
        );
      } else {
        try {
          definition.schema = this.convert(node, target, definition.refs);
        } catch (error) {
          if (!(error instanceof OperationError)) throw error;
          definition.failure = error;
        }
      }
    }
    const failure = this.#definitions.get(key)?.failure;
    if (failure) throw new OperationError(failure.reason, site, failure.message);
    return key;
  }

  #newKey(pointer: string): string {
    const component = /^\/components\/schemas\/([^/]+)$/.exec(pointer)?.[1];
    const base = (component ?? pointer.slice(1)).replace(/[^A-Za-z0-9._-]/g, '_') || '_';
    let key = base;
    for (let n = 2; this.#definitions.has(key); n++) key = `${base}_${n}`;
    return key;
  }

  /** One pass over the node's own keys: real schemas have a few keywords each, not forty. */
  #convertKeywords(
    node: Record<string, unknown>,
    pointer: string,
    refs: Set<string>,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const sub = (value: unknown, ...tokens: Array<string | number>) =>
      this.convert(value, childPointer(pointer, ...tokens), refs);
    const subList = (list: unknown[], key: string) => list.map((value, i) => sub(value, key, i));
    const subMap = (map: Record<string, unknown>, key: string, keep = (_: string) => true) => {
      const result: Record<string, JsonSchema> = {};
      for (const name in map) if (keep(name)) result[name] = sub(map[name], key, name);
      return result;
    };

    for (const key in node) {
      const value = node[key];
      switch (key) {
        case 'type': {
          const type = convertType(value);
          if (type !== undefined) out.type = type;
          break;
        }
        case 'title':
        case 'description':
        case 'contentMediaType':
        case 'contentEncoding':
        case '$comment':
          if (typeof value === 'string') out[key] = value;
          break;
        case 'uniqueItems':
        case 'deprecated':
        case 'readOnly':
        case 'writeOnly':
          if (typeof value === 'boolean') out[key] = value;
          break;
        // OpenAPI 3.0 writes `exclusiveMaximum: true` beside `maximum`; 2020-12 writes the bound itself.
        case 'minimum':
          if (isFiniteNumber(value))
            out[node.exclusiveMinimum === true ? 'exclusiveMinimum' : key] = value;
          break;
        case 'maximum':
          if (isFiniteNumber(value))
            out[node.exclusiveMaximum === true ? 'exclusiveMaximum' : key] = value;
          break;
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
          if (isFiniteNumber(value)) out[key] = value;
          break;
        case 'minLength':
        case 'maxLength':
        case 'minItems':
        case 'maxItems':
        case 'minProperties':
        case 'maxProperties':
        case 'minContains':
        case 'maxContains':
          if (isCount(value)) out[key] = value;
          break;
        case 'multipleOf':
          if (isFiniteNumber(value) && value > 0) out[key] = value;
          break;
        case 'format':
          if (typeof value !== 'string') break;
          // Bytes travel as base64 in the arguments (the executor decodes them); the pattern lets
          // ajv say so at the field, and a sampler produce valid values.
          if (value === 'binary') {
            out.contentEncoding = 'base64';
            if (typeof node.pattern !== 'string') out.pattern = BASE64_PATTERN;
          } else {
            out.format = value;
            if (!KNOWN_FORMATS.has(value)) this.annotationFormats.add(value);
          }
          break;
        case 'pattern':
          if (typeof value === 'string' && isRegExp(value)) out[key] = value;
          break;
        case 'enum':
          if (Array.isArray(value) && value.length > 0) out[key] = value;
          break;
        case 'const':
        case 'default':
          out[key] = value;
          break;
        case 'examples':
          if (Array.isArray(value)) out[key] = value;
          break;
        case 'example':
          if (!Array.isArray(node.examples)) out.examples = [value];
          break;
        case 'required':
          if (Array.isArray(value)) {
            const names = [...new Set(value.filter((n): n is string => typeof n === 'string'))];
            if (names.length > 0) out[key] = names;
          }
          break;
        case 'dependentRequired':
          if (isObject(value)) {
            const dependent = Object.entries(value).filter(([, v]) => isStringList(v));
            if (dependent.length > 0) out[key] = Object.fromEntries(dependent);
          }
          break;
        case 'properties':
        case 'dependentSchemas':
          if (isObject(value)) out[key] = subMap(value, key);
          break;
        case 'patternProperties':
          if (isObject(value)) out[key] = subMap(value, key, isRegExp);
          break;
        case 'allOf':
        case 'anyOf':
        case 'oneOf':
          if (Array.isArray(value) && value.length > 0) out[key] = subList(value, key);
          break;
        case 'additionalProperties':
        case 'not':
        case 'contains':
        case 'propertyNames':
        case 'if':
        case 'unevaluatedItems':
        case 'unevaluatedProperties':
          if (isSchemaLike(value)) out[key] = sub(value, key);
          break;
        case 'then':
        case 'else':
          if (isSchemaLike(node.if) && isSchemaLike(value)) out[key] = sub(value, key);
          break;
        case 'prefixItems':
          if (Array.isArray(value)) out[key] = subList(value, key);
          break;
        case 'items':
          // A tuple written the draft-04 way becomes prefixItems.
          if (Array.isArray(value)) {
            if (value.length > 0 && !Array.isArray(node.prefixItems))
              out.prefixItems = subList(value, key);
          } else if (isSchemaLike(value)) out[key] = sub(value, key);
          break;
        // Anything else (`nullable` below, `discriminator`, `xml`, `x-*`, ...) is not JSON Schema.
      }
    }
    // `nullable` is 3.0's; 3.1 documents (Coolify's) still write it, and mean it.
    if (node.nullable === true) return allowNull(out);
    return out;
  }
}

function convertType(type: unknown): string | string[] | undefined {
  if (typeof type === 'string') return TYPES.has(type) ? type : undefined;
  if (!Array.isArray(type)) return undefined;
  const names = [
    ...new Set(type.filter((t): t is string => typeof t === 'string' && TYPES.has(t))),
  ];
  if (names.length === 0) return undefined;
  return names.length === 1 ? names[0] : names;
}

function allowNull(schema: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(schema.enum) && !schema.enum.includes(null))
    schema.enum = [...schema.enum, null];
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type))
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  if (Object.keys(schema).length === 0) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

function isSchemaLike(value: unknown): value is boolean | Record<string, unknown> {
  return typeof value === 'boolean' || isObject(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isStringList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.every((v) => typeof v === 'string') &&
    new Set(value).size === value.length
  );
}

/** ajv compiles patterns with the `u` flag; a pattern that does not is dropped rather than breaking the action. */
function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}
