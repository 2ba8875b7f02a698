/**
 * OpenAPI 3 parameter serialization for query, header and cookie parameters.
 *
 * Query: `form` (default; `explode` true repeats the name for arrays and
 * spreads objects as `key=value`, `explode` false joins with commas),
 * `spaceDelimited` and `pipeDelimited` (arrays; objects flatten to
 * key/value), `deepObject` (`name[key]=value`, nested objects nest further).
 * `allowReserved` keeps RFC 3986 reserved characters unencoded. Parameters
 * described by `content` are JSON text.
 *
 * Header: `simple` (arrays `a,b`; objects `k,v` or, exploded, `k=v`), never
 * percent-encoded. Cookie: `form`, values percent-encoded.
 */
import type { ContentParameterSpec, ParameterSpec } from '../../../../generated/catalog-format.ts';
import { isJsonMediaType } from '../../../../generated/catalog-rules.ts';
import { isPlainObject, scalarText } from '../../base/json-value.ts';
import { encodeAllowReserved, encodeStrict } from './percent-encode.ts';

type Encode = (value: string) => string;

/** The query string (without `?`), in the order the parameters are declared. */
export function serializeQuery(
  parameters: readonly ParameterSpec[],
  values: Readonly<Record<string, unknown>> | undefined,
): string {
  const pairs: string[] = [];
  for (const spec of parameters) {
    if (spec.in !== 'query') continue;
    const value = values?.[spec.name];
    if (value === undefined) continue;
    pairs.push(...queryPairs(spec, value));
  }
  return pairs.join('&');
}

function queryPairs(spec: ParameterSpec, value: unknown): string[] {
  const name = encodeStrict(spec.name);
  if (spec.contentType !== undefined) return [`${name}=${encodeStrict(contentText(spec, value))}`];
  const { style, explode } = spec;
  const encode: Encode = spec.allowReserved ? encodeAllowReserved : encodeStrict;

  if (style === 'deepObject' && isPlainObject(value)) return deepObjectPairs(name, value, encode);

  if (Array.isArray(value)) {
    const items = value.map((item) => encode(scalarText(item)));
    if (explode || items.length === 0)
      return items.length === 0 ? [`${name}=`] : items.map((item) => `${name}=${item}`);
    return [`${name}=${items.join(delimiter(style))}`];
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (explode && style === 'form')
      return entries.map(([key, item]) => `${encode(key)}=${encode(scalarText(item))}`);
    if (entries.length === 0) return [`${name}=`];
    const flat = entries.flatMap(([key, item]) => [encode(key), encode(scalarText(item))]);
    return [`${name}=${flat.join(delimiter(style))}`];
  }
  return [`${name}=${encode(scalarText(value))}`];
}

function delimiter(style: string): string {
  if (style === 'spaceDelimited') return '%20';
  if (style === 'pipeDelimited') return '|';
  return ',';
}

function deepObjectPairs(prefix: string, value: Record<string, unknown>, encode: Encode): string[] {
  const pairs: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const name = `${prefix}[${encodeStrict(key)}]`;
    if (isPlainObject(item)) pairs.push(...deepObjectPairs(name, item, encode));
    else if (Array.isArray(item))
      for (const element of item) pairs.push(`${name}=${encode(scalarText(element))}`);
    else pairs.push(`${name}=${encode(scalarText(item))}`);
  }
  return pairs;
}

/** Header parameter text (`simple` style); the caller checks it for control characters. */
export function headerText(spec: ParameterSpec, value: unknown): string {
  if (spec.contentType !== undefined) return contentText(spec, value);
  if (Array.isArray(value)) return value.map(scalarText).join(',');
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return spec.explode
      ? entries.map(([key, item]) => `${key}=${scalarText(item)}`).join(',')
      : entries.flatMap(([key, item]) => [key, scalarText(item)]).join(',');
  }
  return scalarText(value);
}

/** The `Cookie` header for the action's cookie parameters, or undefined when none is given. */
export function cookieHeader(
  parameters: readonly ParameterSpec[],
  values: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const pairs: string[] = [];
  for (const spec of parameters) {
    if (spec.in !== 'cookie') continue;
    const value = values?.[spec.name];
    if (value === undefined) continue;
    const text =
      spec.contentType !== undefined
        ? encodeStrict(contentText(spec, value))
        : Array.isArray(value)
          ? value.map((item) => encodeStrict(scalarText(item))).join(',')
          : isPlainObject(value)
            ? Object.entries(value)
                .flatMap(([key, item]) => [encodeStrict(key), encodeStrict(scalarText(item))])
                .join(',')
            : encodeStrict(scalarText(value));
    pairs.push(`${encodeStrict(spec.name)}=${text}`);
  }
  return pairs.length === 0 ? undefined : pairs.join('; ');
}

/** A parameter described by `content`: JSON text for JSON media types, strings as they are. */
function contentText(spec: ContentParameterSpec, value: unknown): string {
  return typeof value === 'string' && !isJsonMediaType(spec.contentType)
    ? value
    : JSON.stringify(value);
}
