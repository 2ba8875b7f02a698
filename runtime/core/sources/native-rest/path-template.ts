/**
 * Expands an operation's path template (`/v1/instances/{uuid}/log`) with its
 * path parameters, serialized per OpenAPI `style` (`simple`, `label`,
 * `matrix`) and `explode`, each value percent-encoded. A value that could
 * leave its segment is refused before encoding: empty, `.`, `..`, `/` or `\`,
 * control characters, and the same hidden behind percent-encoding (any depth)
 * or Unicode compatibility forms (`．．`, `／`).
 */
import type { ParameterSpec } from '../../../../generated/catalog-format.ts';
import { GatewayError } from '../../base/errors.ts';
import { pointerToken } from '../../base/json-value.ts';
import { encodeStrict } from './percent-encode.ts';

const PLACEHOLDER = /\{([^{}]+)\}/g;
const PERCENT_ESCAPE = /%[0-9a-fA-F]{2}/;
const SEPARATOR = /[/\\]/;
/** Decoding rounds before a value that still holds escapes is refused. */
const MAX_DECODE_ROUNDS = 3;

export function expandPath(
  template: string,
  parameters: readonly ParameterSpec[],
  values: Readonly<Record<string, unknown>> | undefined,
): string {
  const byName = pathParameters(parameters);
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const field = `/path/${pointerToken(name)}`;
    const spec = byName.get(name);
    const value = values?.[name];
    if (value === undefined || value === null)
      throw new GatewayError('path_parameter_refused', `path parameter ${name} is required`, {
        field,
      });
    return serializePathValue(name, value, spec, field);
  });
}

const pathParametersOf = new WeakMap<readonly ParameterSpec[], Map<string, ParameterSpec>>();

/** An action's path parameters by name, gathered once per action. */
function pathParameters(parameters: readonly ParameterSpec[]): Map<string, ParameterSpec> {
  let byName = pathParametersOf.get(parameters);
  if (byName === undefined) {
    byName = new Map(parameters.filter((p) => p.in === 'path').map((p) => [p.name, p]));
    pathParametersOf.set(parameters, byName);
  }
  return byName;
}

function serializePathValue(
  name: string,
  value: unknown,
  spec: ParameterSpec | undefined,
  field: string,
): string {
  // The compiler declares every name of the template (simple, not exploded, when the document does not).
  if (spec === undefined || spec.contentType !== undefined)
    throw new GatewayError(
      'internal',
      `the catalog does not say how to write path parameter ${name}`,
    );
  const { style, explode } = spec;
  const prefix = style === 'label' ? '.' : style === 'matrix' ? ';' : '';
  const one = (item: unknown, at: string): string => encodeStrict(safeSegment(item, name, at));

  if (Array.isArray(value)) {
    if (value.length === 0) throw refused(name, field, 'is an empty list; give at least one value');
    const items = value.map((item, index) => one(item, `${field}/${index}`));
    if (style === 'matrix')
      return explode
        ? items.map((item) => `;${encodeStrict(name)}=${item}`).join('')
        : `;${encodeStrict(name)}=${items.join(',')}`;
    return prefix + items.join(explode && style === 'label' ? '.' : ',');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0)
      throw refused(name, field, 'is an empty object; give at least one property');
    const pairs = entries.map(([key, item]) => {
      const at = `${field}/${pointerToken(key)}`;
      return [one(key, at), one(item, at)] as const;
    });
    if (explode) {
      const joined = pairs.map(([key, item]) => `${key}=${item}`);
      if (style === 'matrix') return joined.map((pair) => `;${pair}`).join('');
      return prefix + joined.join(style === 'label' ? '.' : ',');
    }
    const flat = pairs.flat().join(',');
    return style === 'matrix' ? `;${encodeStrict(name)}=${flat}` : prefix + flat;
  }
  const item = one(value, field);
  return style === 'matrix' ? `;${encodeStrict(name)}=${item}` : prefix + item;
}

/**
 * The value as text when it cannot leave its path segment; otherwise
 * `path_parameter_refused`. Every decoding layer is checked, as the provider
 * (or a proxy in front of it) may decode more than once.
 */
function safeSegment(value: unknown, name: string, field: string): string {
  if (typeof value === 'object' && value !== null)
    throw new GatewayError('path_parameter_refused', 'a path value must be text or a number', {
      field,
    });
  const text = String(value);
  const layers = [text];
  let current = text;
  for (let round = 0; PERCENT_ESCAPE.test(current); round += 1) {
    if (round === MAX_DECODE_ROUNDS)
      throw refused(name, field, 'is percent-encoded too many times');
    try {
      current = decodeURIComponent(current);
    } catch {
      throw refused(name, field, 'holds a percent-encoding that is not valid UTF-8');
    }
    layers.push(current);
  }
  for (const layer of layers) {
    for (const form of [layer, layer.normalize('NFKC')]) {
      if (form === '') throw refused(name, field, 'is empty');
      if (form === '.' || form === '..' || /^\.\.?;/.test(form))
        throw refused(name, field, 'is a relative path step (. or ..)');
      if (SEPARATOR.test(form)) throw refused(name, field, 'holds a / or \\');
      if (hasControlCharacter(form)) throw refused(name, field, 'holds a control character');
    }
  }
  return text;
}

function refused(name: string, field: string, why: string): GatewayError {
  return new GatewayError(
    'path_parameter_refused',
    `path parameter ${name} ${why}; it must stay inside its path segment`,
    { field },
  );
}

/** C0 controls, DEL and C1 controls. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
