/**
 * Request Body Objects: one media type chosen (JSON, then form, then multipart,
 * then the others), on every method (GET and DELETE included), and the body
 * argument an agent sends for it, so that what the input schema accepts is what
 * the executor can send:
 *
 * - JSON, form and multipart take the document's schema as it is.
 * - Text media types (XML, plain text, CSV, ...) take a string. A document
 *   schema that is not a string (an XML body described as an object) is kept as
 *   `contentSchema`, an annotation of what the text holds: mapping objects to
 *   XML needs the whole OpenAPI `xml` object model (names, attributes,
 *   wrapping, namespaces, ordering), which no library implements, while an
 *   agent writes the XML the provider documents directly.
 * - Binary media types take base64 text (`contentEncoding: base64`), decoded to
 *   the bytes sent; a document schema that is not a string is kept as `contentSchema`.
 */

import type { BodyKind } from '../catalog/format.ts';
import { mediaTypeEssence } from '../catalog/rules.ts';
import { OperationError } from '../errors.ts';
import { childPointer } from './json-pointer.ts';
import { bodyKind, choiceReason, preference } from './media-type.ts';
import { followRef, isObject } from './refs.ts';
import { BASE64_PATTERN, type JsonSchema, type SchemaConverter } from './schema-object.ts';

export interface RequestBody {
  required: boolean;
  /** The media type the executor sends unless the call names an alternative. */
  contentType: string;
  kind: BodyKind;
  /** Every media type the document offers, in document order. */
  contentTypes: string[];
  chosenBecause: string;
  /** Other offered media types that take the same argument with the same schema. */
  alternatives: string[];
  /** The body argument's schema. */
  schema: JsonSchema;
  /** Per-property encoding for form and multipart bodies. */
  encoding: Record<string, { contentType?: string; style?: string; explode?: boolean }> | undefined;
  /** Multipart properties whose values are files (base64 in the arguments). */
  files: string[];
  description: string | undefined;
  pointer: string;
}

export function normalizeRequestBody(
  root: unknown,
  entry: unknown,
  entryPointer: string,
  converter: SchemaConverter,
  refs: Set<string>,
): RequestBody | undefined {
  const { node, pointer } = followRef(root, entry, entryPointer);
  const content = isObject(node.content) ? node.content : {};
  const contentTypes = Object.keys(content);
  if (contentTypes.length === 0) return undefined;
  const argument = (type: string, into: Set<string>) =>
    bodyArgument(type, content[type], childPointer(pointer, 'content', type), converter, into);
  // The preferred type whose argument can be sent: a form or multipart schema must be an object.
  const ranked = contentTypes
    .map((type) => ({ type, ...argument(type, new Set()) }))
    .sort((a, b) => preference(a.type, a.kind) - preference(b.type, b.kind));
  const at = ranked.findIndex((candidate) => isSendable(candidate, converter));
  if (at === -1) {
    const type = ranked[0]!.type;
    throw new OperationError(
      'invalid_operation',
      childPointer(pointer, 'content', type, 'schema'),
      `a ${mediaTypeEssence(type)} body is one field or part per property, but its schema is not an object`,
    );
  }
  const unsendable = ranked.slice(0, at).map((c) => c.type);
  const contentType = ranked[at]!.type;
  const chosen = argument(contentType, refs);
  // Another offered type is a choice for the call when it takes the same argument.
  const alternatives = contentTypes.filter((type) => {
    if (type === contentType || type.includes('*') || !type.includes('/')) return false;
    const other = ranked.find((c) => c.type === type)!;
    return other.kind === chosen.kind && sameArgument(other.schema, chosen.schema);
  });
  const media = content[contentType];
  return {
    required: node.required === true,
    contentType,
    kind: chosen.kind,
    contentTypes,
    chosenBecause:
      choiceReason(contentType, chosen.kind, contentTypes) +
      (unsendable.length > 0
        ? `; passed over ${unsendable.join(', ')}: its schema is not an object`
        : ''),
    alternatives,
    schema: chosen.schema,
    encoding: isObject(media) && isObject(media.encoding) ? encodingOf(media.encoding) : undefined,
    files: chosen.kind === 'multipart' ? fileProperties(chosen.schema, converter) : [],
    description: typeof node.description === 'string' ? node.description : undefined,
    pointer,
  };
}

/** The argument one media type takes: its kind and its schema. */
function bodyArgument(
  contentType: string,
  media: unknown,
  pointer: string,
  converter: SchemaConverter,
  refs: Set<string>,
): { kind: BodyKind; schema: JsonSchema } {
  const documented =
    isObject(media) && 'schema' in media
      ? converter.convert(media.schema, childPointer(pointer, 'schema'), refs)
      : undefined;
  const type = mediaTypeEssence(contentType);
  let kind = bodyKind(type);
  // A wildcard takes what the schema says: bytes, text, or any JSON value.
  if (type.includes('*') && documented !== undefined) {
    const shape = stringShape(documented, converter);
    if (shape === 'binary') kind = 'binary';
    else if (shape === 'text') kind = 'text';
  }
  switch (kind) {
    case 'form':
      // A form described as a string is already encoded (`a=1&b=2`, Spoonacular's): sent as it is.
      if (documented !== undefined && stringShape(documented, converter) === 'text')
        return { kind: 'text', schema: documented };
      return { kind, schema: asObject(documented, converter) };
    case 'multipart':
      return { kind, schema: asObject(documented, converter) };
    case 'json':
      return { kind, schema: documented ?? {} };
    case 'text': {
      const shape = documented === undefined ? 'other' : stringShape(documented, converter);
      if (shape === 'text') return { kind, schema: documented! };
      // `text/plain` with `format: binary` (WhatsApp's media upload): bytes, whatever the label.
      if (shape === 'binary') return { kind: 'binary', schema: documented! };
      const about = `The body as ${type} text; contentSchema describes what it holds.`;
      return {
        kind,
        schema: wrapped({ type: 'string', contentMediaType: type }, documented, about),
      };
    }
    case 'binary': {
      if (documented !== undefined && stringShape(documented, converter) === 'binary')
        return { kind, schema: documented };
      const bytes = {
        type: 'string',
        contentEncoding: 'base64',
        contentMediaType: type.includes('*') ? 'application/octet-stream' : type,
        pattern: BASE64_PATTERN,
      };
      const about = `The body's bytes as base64; contentSchema describes what they hold.`;
      return { kind, schema: wrapped(bytes, documented, about) };
    }
  }
}

/** A form or multipart schema that says no type takes an object: one field or part per property. */
function asObject(documented: JsonSchema | undefined, converter: SchemaConverter): JsonSchema {
  if (documented === undefined || documented === true) return { type: 'object' };
  const resolved = resolveRef(documented, converter);
  if (typeof resolved !== 'object' || resolved.type !== undefined) return documented;
  return { ...(documented as Record<string, unknown>), type: 'object' };
}

/** A form or multipart argument must be an object (or say nothing of its type). */
function isSendable(
  argument: { kind: BodyKind; schema: JsonSchema },
  converter: SchemaConverter,
): boolean {
  if (argument.kind !== 'form' && argument.kind !== 'multipart') return true;
  const resolved = resolveRef(argument.schema, converter);
  if (typeof resolved !== 'object' || resolved.type === undefined) return true;
  const type = resolved.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object'));
}

/** A string argument that keeps the document's schema as `contentSchema` (and its description). */
function wrapped(
  argument: Record<string, unknown>,
  documented: JsonSchema | undefined,
  about: string,
): JsonSchema {
  if (documented === undefined || documented === true || isEmpty(documented)) return argument;
  const own = typeof documented === 'object' ? documented.description : undefined;
  const description = typeof own === 'string' ? `${about} ${own}` : about;
  return { ...argument, description, contentSchema: documented };
}

function isEmpty(schema: JsonSchema): boolean {
  return typeof schema === 'object' && Object.keys(schema).length === 0;
}

/** Whether a schema (or the definition it refers to) is a string, and whether of base64 bytes. */
function stringShape(schema: JsonSchema, converter: SchemaConverter): 'text' | 'binary' | 'other' {
  const resolved = resolveRef(schema, converter);
  if (typeof resolved !== 'object') return 'other';
  const type = resolved.type;
  const isString = type === 'string' || (Array.isArray(type) && type.includes('string'));
  if (!isString) return 'other';
  return resolved.contentEncoding === 'base64' ? 'binary' : 'text';
}

function resolveRef(schema: JsonSchema, converter: SchemaConverter, depth = 0): JsonSchema {
  if (typeof schema !== 'object' || typeof schema.$ref !== 'string' || depth > 8) return schema;
  return resolveRef(
    converter.definition(schema.$ref.slice('#/$defs/'.length)),
    converter,
    depth + 1,
  );
}

/** The top-level properties of a multipart schema that carry files (or arrays of files). */
function fileProperties(schema: JsonSchema, converter: SchemaConverter): string[] {
  const files = new Set<string>();
  const visit = (node: JsonSchema, depth: number) => {
    const resolved = resolveRef(node, converter);
    if (typeof resolved !== 'object' || depth > 8) return;
    if (isObject(resolved.properties)) {
      for (const [name, property] of Object.entries(resolved.properties)) {
        const value = resolveRef(property as JsonSchema, converter);
        const item =
          typeof value === 'object' && value.type === 'array' && value.items !== undefined
            ? (value.items as JsonSchema)
            : value;
        if (stringShape(item, converter) === 'binary') files.add(name);
      }
    }
    if (Array.isArray(resolved.allOf)) for (const part of resolved.allOf) visit(part, depth + 1);
  };
  visit(schema, 0);
  return [...files].sort();
}

/** Two media types take the same argument when their schemas agree, the media type named and the words about it aside. */
function sameArgument(a: JsonSchema, b: JsonSchema): boolean {
  const strip = (schema: JsonSchema) =>
    typeof schema === 'object'
      ? JSON.stringify({ ...schema, contentMediaType: undefined, description: undefined })
      : String(schema);
  return strip(a) === strip(b);
}

function encodingOf(encoding: Record<string, unknown>): RequestBody['encoding'] {
  const out: NonNullable<RequestBody['encoding']> = {};
  for (const [name, value] of Object.entries(encoding)) {
    if (!isObject(value)) continue;
    out[name] = {
      ...(typeof value.contentType === 'string' ? { contentType: value.contentType } : {}),
      ...(typeof value.style === 'string' ? { style: value.style } : {}),
      ...(typeof value.explode === 'boolean' ? { explode: value.explode } : {}),
    };
  }
  return out;
}
