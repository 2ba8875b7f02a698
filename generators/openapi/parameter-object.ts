/** Parameter Objects: path-level and operation-level lists merged (operation wins, by name + location). */
import { catalogHeaderNameRefusal } from '../catalog/rules.ts';
import { OperationError } from '../errors.ts';
import { childPointer } from './json-pointer.ts';
import { followRef, isObject } from './refs.ts';
import type { JsonSchema, SchemaConverter } from './schema-object.ts';

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';
const LOCATIONS = new Set<string>(['path', 'query', 'header', 'cookie']);

/** How a value is written into the request: RFC 6570-ish `style`, or a whole media type. */
export type Serialization =
  | { style: string; explode: boolean; allowReserved: boolean }
  | { contentType: string };

export interface Parameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  deprecated: boolean;
  description: string | undefined;
  schema: JsonSchema;
  serialization: Serialization;
  pointer: string;
}

/** An optional header parameter left out: the gateway sets that header itself. */
export interface DroppedHeader {
  name: string;
  pointer: string;
}

/** Header parameters OpenAPI says to ignore: the request itself sets them. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

const DEFAULT_STYLE: Record<ParameterLocation, string> = {
  path: 'simple',
  query: 'form',
  header: 'simple',
  cookie: 'form',
};

export function parameterKey(location: string, name: string): string {
  return `${location}:${location === 'header' ? name.toLowerCase() : name}`;
}

/** Both lists, merged; then path parameters reconciled with the path template. */
export function mergeParameters(
  root: unknown,
  lists: Array<{ list: unknown; pointer: string }>,
  path: string,
  converter: SchemaConverter,
  refs: Set<string>,
  dropped: DroppedHeader[],
): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const { list, pointer } of lists) {
    if (list === undefined) continue;
    if (!Array.isArray(list))
      throw new OperationError('invalid_operation', pointer, 'parameters must be a list');
    list.forEach((entry, index) => {
      const parameter = normalizeParameter(
        root,
        entry,
        childPointer(pointer, index),
        converter,
        refs,
        dropped,
      );
      if (parameter) byKey.set(parameterKey(parameter.in, parameter.name), parameter);
    });
  }
  const templateNames = pathTemplateNames(path);
  for (const name of templateNames) {
    if (!byKey.has(parameterKey('path', name))) {
      // The document forgot to declare it; the request cannot be built without it.
      byKey.set(parameterKey('path', name), {
        name,
        in: 'path',
        required: true,
        deprecated: false,
        description: undefined,
        schema: { type: 'string', minLength: 1 },
        serialization: { style: 'simple', explode: false, allowReserved: false },
        pointer: lists.at(-1)?.pointer ?? '',
      });
    }
  }
  return [...byKey.values()].filter((p) => p.in !== 'path' || templateNames.includes(p.name));
}

function normalizeParameter(
  root: unknown,
  entry: unknown,
  entryPointer: string,
  converter: SchemaConverter,
  refs: Set<string>,
  dropped: DroppedHeader[],
): Parameter | undefined {
  const { node, pointer } = followRef(root, entry, entryPointer);
  const name = node.name;
  const location = node.in;
  if (typeof name !== 'string' || name === '') {
    throw new OperationError('invalid_operation', pointer, 'a parameter needs a name');
  }
  if (typeof location !== 'string' || !LOCATIONS.has(location)) {
    throw new OperationError(
      'invalid_operation',
      childPointer(pointer, 'in'),
      `parameter "${name}" has no valid location`,
    );
  }
  const at = location as ParameterLocation;
  if (at === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) return undefined;
  // A header the gateway owns is never an argument (the runtime refuses it as header_refused).
  if (at === 'header' && catalogHeaderNameRefusal(name) !== undefined) {
    if (node.required === true)
      throw new OperationError(
        'gateway_owned_header',
        pointer,
        `needs the header ${name}, which the gateway sets itself and no argument may set`,
      );
    if (!dropped.some((d) => d.name.toLowerCase() === name.toLowerCase()))
      dropped.push({ name, pointer });
    return undefined;
  }

  let schema: JsonSchema = {};
  let serialization: Serialization;
  const content = isObject(node.content) ? Object.entries(node.content)[0] : undefined;
  if (content) {
    const [contentType, media] = content;
    if (isObject(media) && 'schema' in media) {
      schema = converter.convert(
        media.schema,
        childPointer(pointer, 'content', contentType, 'schema'),
        refs,
      );
    }
    serialization = { contentType };
  } else {
    if ('schema' in node)
      schema = converter.convert(node.schema, childPointer(pointer, 'schema'), refs);
    const style = typeof node.style === 'string' ? node.style : DEFAULT_STYLE[at];
    serialization = {
      style,
      explode: typeof node.explode === 'boolean' ? node.explode : style === 'form',
      allowReserved: node.allowReserved === true,
    };
  }
  if (
    typeof node.description === 'string' &&
    typeof schema === 'object' &&
    schema.description === undefined
  ) {
    schema = { ...schema, description: node.description };
  }
  if (at === 'path') schema = pathValueSchema(schema);
  return {
    name,
    in: at,
    required: at === 'path' || node.required === true,
    deprecated: node.deprecated === true,
    description: typeof node.description === 'string' ? node.description : undefined,
    schema,
    serialization,
    pointer,
  };
}

/**
 * A path value is never null and never empty (the request would have another
 * path): `nullable` is dropped, and a string gets `minLength: 1`, so ajv refuses
 * what the request builder would, at the same field.
 */
function pathValueSchema(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object') return schema;
  let out: Record<string, unknown> = schema;
  const alternatives = out.anyOf;
  if (
    Array.isArray(alternatives) &&
    alternatives.length === 2 &&
    isObject(alternatives[1]) &&
    alternatives[1].type === 'null' &&
    Object.keys(alternatives[1]).length === 1 &&
    isObject(alternatives[0]) &&
    Object.keys(out).every((key) => key === 'anyOf' || key === 'description')
  ) {
    const { anyOf: _, ...rest } = out;
    out = { ...alternatives[0], ...rest };
  }
  if (Array.isArray(out.type) && out.type.includes('null')) {
    const types = out.type.filter((t) => t !== 'null');
    out = { ...out, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(out.enum) && out.enum.includes(null))
    out = { ...out, enum: out.enum.filter((v) => v !== null) };
  if (out.type === 'string' && out.minLength === undefined && out.enum === undefined)
    out = { ...out, minLength: 1 };
  return out;
}

export function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}
