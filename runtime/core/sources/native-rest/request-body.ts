/**
 * The request body of one call, as the action's catalog entry says to send it
 * (`BodySpec.kind`). It is sent whenever the call gives one, whatever the method
 * (the Unikraft platform API takes JSON bodies on GET and DELETE).
 *
 * - `json`: JSON text (a wildcard type goes as `application/json`).
 * - `form`: the object's properties as form pairs.
 * - `multipart`: one part per property (arrays repeat the part); file parts are
 *   base64 in the arguments and go as bytes with a filename and a content type.
 * - `text`: the string as it is (a wildcard type goes as `text/plain; charset=utf-8`).
 * - `binary`: the base64 text decoded to bytes, under the chosen media type.
 *
 * A call may name another offered media type of the same kind (`contentType`).
 */
import { randomUUID } from 'node:crypto';
import type { BodyKind, BodySpec } from '../../../../generated/catalog-format.ts';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject, pointerToken, scalarText } from '../../base/json-value.ts';

export interface EncodedBody {
  contentType: string;
  bytes: string | Uint8Array;
}

/** What a call may say about each multipart file part. */
export type FileParts = Readonly<Record<string, { filename?: string; contentType?: string }>>;

export interface BodyChoices {
  /** One of the spec's `alternatives` (or its own type). */
  contentType?: string;
  files?: FileParts;
}

export function encodeBody(spec: BodySpec, value: unknown, choices: BodyChoices = {}): EncodedBody {
  const contentType = chosenType(spec, choices.contentType);
  switch (kindOf(spec, value)) {
    case 'json':
      return {
        contentType: isWildcard(contentType) ? 'application/json' : contentType,
        bytes: JSON.stringify(value),
      };
    case 'form':
      return { contentType, bytes: formText(record(value)) };
    case 'multipart':
      return multipart(spec, record(value), choices.files ?? {});
    case 'text':
      return {
        contentType: isWildcard(contentType) ? 'text/plain; charset=utf-8' : contentType,
        bytes: text(spec, value),
      };
    case 'binary':
      return {
        contentType: isWildcard(contentType) ? 'application/octet-stream' : contentType,
        bytes: base64Bytes(value, '/body'),
      };
  }
}

/** A spec without `kind` (a catalog compiled before it) is read as it always was. */
function kindOf(spec: BodySpec, value: unknown): BodyKind {
  if (spec.kind !== undefined) return spec.kind;
  const type = spec.contentType.toLowerCase();
  if (/^application\/([\w.-]+\+)?json(;|$)/.test(type)) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'multipart/form-data') return 'multipart';
  return isWildcard(type) && typeof value !== 'string' ? 'json' : 'text';
}

function chosenType(spec: BodySpec, named: string | undefined): string {
  if (named === undefined || named === spec.contentType) return spec.contentType;
  if (spec.alternatives?.includes(named)) return named;
  const offered = [spec.contentType, ...(spec.alternatives ?? [])].join(', ');
  throw new GatewayError(
    'arguments_invalid',
    `contentType ${named} is not one this action can send its body as; use one of: ${offered}`,
    { field: '/contentType' },
  );
}

function isWildcard(type: string): boolean {
  return type === '*/*' || type.endsWith('/*');
}

function record(value: unknown): Record<string, unknown> {
  if (!isPlainObject(value))
    throw new GatewayError('arguments_invalid', 'this action takes an object as its body', {
      field: '/body',
    });
  return value;
}

function text(spec: BodySpec, value: unknown): string {
  if (typeof value === 'string') return value;
  throw new GatewayError(
    'arguments_invalid',
    `this action takes a ${spec.contentType} body; send it as a string`,
    { field: '/body' },
  );
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 text → its bytes; anything else is `arguments_invalid` at `field`. */
function base64Bytes(value: unknown, field: string): Buffer {
  if (typeof value !== 'string' || !BASE64.test(value))
    throw new GatewayError(
      'arguments_invalid',
      `${field} holds bytes: send them as standard, padded base64 text`,
      { field },
    );
  return Buffer.from(value, 'base64');
}

function formText(value: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (Array.isArray(item)) for (const element of item) form.append(key, scalarText(element));
    else form.append(key, scalarText(item));
  }
  return form.toString();
}

function multipart(spec: BodySpec, value: Record<string, unknown>, files: FileParts): EncodedBody {
  const boundary = `portcullis-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const isFile = spec.files?.includes(key) === true;
    const documented = firstType(spec.encoding?.[key]?.contentType);
    const list = Array.isArray(item) ? item : [item];
    for (const [i, element] of list.entries()) {
      let disposition = `form-data; name="${quoteName(key)}"`;
      let type: string | undefined;
      let content: Buffer;
      if (isFile) {
        const field = `/body/${pointerToken(key)}${Array.isArray(item) ? `/${i}` : ''}`;
        content = base64Bytes(element, field);
        disposition += `; filename="${quoteName(files[key]?.filename ?? key)}"`;
        type = files[key]?.contentType ?? documented ?? 'application/octet-stream';
      } else {
        const structured = element !== null && typeof element === 'object';
        type = documented ?? (structured ? 'application/json' : undefined);
        content = Buffer.from(scalarText(element), 'utf8');
      }
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${
            type === undefined ? '' : `Content-Type: ${type}\r\n`
          }\r\n`,
          'utf8',
        ),
        content,
        Buffer.from('\r\n', 'utf8'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    bytes: Buffer.concat(chunks),
  };
}

/** An encoding's `contentType` may list several (`image/png, image/jpeg`): the first is sent. */
function firstType(listed: string | undefined): string | undefined {
  const first = listed?.split(',')[0]?.trim();
  return first === '' || first?.includes('*') ? undefined : first;
}

/** A form field name or filename inside a quoted `Content-Disposition` parameter. */
function quoteName(name: string): string {
  return name.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c));
}
