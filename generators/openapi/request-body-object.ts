/** Request Body Objects: one media type chosen, on every method (GET and DELETE included). */
import { childPointer } from './json-pointer.ts';
import { followRef, isObject } from './refs.ts';
import type { JsonSchema, SchemaConverter } from './schema-object.ts';

export interface RequestBody {
  required: boolean;
  /** The media type the executor sends. */
  contentType: string;
  /** Every media type the document offers, in document order. */
  contentTypes: string[];
  schema: JsonSchema;
  /** Per-property encoding for form and multipart bodies. */
  encoding: Record<string, { contentType?: string; style?: string; explode?: boolean }> | undefined;
  description: string | undefined;
  pointer: string;
}

/** Lower rank wins: JSON first, then forms, then raw bytes and text. */
function rank(contentType: string): number {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 0;
  if (/^application\/[\w.+-]*\+json$/.test(type) || type === 'text/json') return 1;
  if (type === 'application/x-www-form-urlencoded') return 2;
  if (type === 'multipart/form-data') return 3;
  if (type === 'application/octet-stream') return 4;
  if (type.startsWith('text/')) return 5;
  return 6;
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
  const contentType = [...contentTypes].sort((a, b) => rank(a) - rank(b))[0]!;
  const media = content[contentType];
  const mediaPointer = childPointer(pointer, 'content', contentType);
  let schema: JsonSchema;
  if (isObject(media) && 'schema' in media) {
    schema = converter.convert(media.schema, childPointer(mediaPointer, 'schema'), refs);
  } else {
    schema =
      rank(contentType) === 4
        ? { type: 'string', contentEncoding: 'base64' }
        : rank(contentType) === 5
          ? { type: 'string' }
          : {};
  }
  if (
    rank(contentType) === 4 &&
    typeof schema === 'object' &&
    schema.type === 'string' &&
    !schema.contentEncoding
  ) {
    schema = { ...schema, contentEncoding: 'base64' };
  }
  return {
    required: node.required === true,
    contentType,
    contentTypes,
    schema,
    encoding: isObject(media) && isObject(media.encoding) ? encodingOf(media.encoding) : undefined,
    description: typeof node.description === 'string' ? node.description : undefined,
    pointer,
  };
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
