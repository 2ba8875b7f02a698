/**
 * The request body of one call, in the media type the action declares. It is
 * sent whenever the call gives one, whatever the method (the Unikraft platform
 * API takes JSON bodies on GET and DELETE).
 *
 * - JSON (`application/json`, `*+json`, and wildcards with a structured value): JSON text.
 * - `application/x-www-form-urlencoded`: the object's properties as form pairs.
 * - `multipart/form-data`: one part per property (arrays repeat the part).
 * - anything else: the value must be a string and is sent as it is.
 */
import { randomUUID } from 'node:crypto';
import type { BodySpec } from '../../../generated/catalog-format.ts';
import { GatewayError } from '../errors.ts';
import { isPlainObject, scalarText } from '../json-value.ts';

export interface EncodedBody {
  contentType: string;
  text: string;
}

export function encodeBody(spec: BodySpec, value: unknown): EncodedBody {
  const type = spec.contentType.toLowerCase();
  if (isJson(type) || (isWildcard(type) && typeof value !== 'string'))
    return {
      contentType: isWildcard(type) ? 'application/json' : spec.contentType,
      text: JSON.stringify(value),
    };
  if (type === 'application/x-www-form-urlencoded')
    return { contentType: spec.contentType, text: formText(record(value)) };
  if (type === 'multipart/form-data') return multipart(spec, record(value));
  if (typeof value !== 'string')
    throw new GatewayError(
      'arguments_invalid',
      `this action takes a ${spec.contentType} body; send it as a string`,
      { field: '/body' },
    );
  return {
    contentType: isWildcard(type) ? 'text/plain; charset=utf-8' : spec.contentType,
    text: value,
  };
}

function isJson(type: string): boolean {
  return /^application\/([\w.-]+\+)?json(;|$)/.test(type);
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

function formText(value: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (Array.isArray(item)) for (const element of item) form.append(key, scalarText(element));
    else form.append(key, scalarText(item));
  }
  return form.toString();
}

function multipart(spec: BodySpec, value: Record<string, unknown>): EncodedBody {
  const boundary = `portcullis-${randomUUID()}`;
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const partType = spec.encoding?.[key]?.contentType;
    for (const element of Array.isArray(item) ? item : [item]) {
      const structured = element !== null && typeof element === 'object';
      const type = partType ?? (structured ? 'application/json' : undefined);
      parts.push(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoteName(key)}"\r\n${
          type === undefined ? '' : `Content-Type: ${type}\r\n`
        }\r\n${scalarText(element)}\r\n`,
      );
    }
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    text: `${parts.join('')}--${boundary}--\r\n`,
  };
}

/** A form field name inside a quoted `Content-Disposition` parameter. */
function quoteName(name: string): string {
  return name.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c));
}
