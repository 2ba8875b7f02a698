/**
 * Expands an operation's path template (`/v1/instances/{uuid}/log`) with its
 * path parameters, serialized per OpenAPI `style` (`simple`, `label`,
 * `matrix`) and `explode`, each value percent-encoded as RFC 6570's simple
 * expansion does (`/` as `%2F`, so `arn:aws:…:portal/abc` stays one segment).
 * What could still step out of the path once a server or a proxy decodes it
 * is refused (`path-traversal.ts`): a `.` or `..` segment in any encoding, a
 * control character; and an empty value, which would merge two segments. Each
 * value is checked, then each segment of the expanded path a value is in, so
 * a step made of a label's `.` and a value (`.` + `/x`) is refused too.
 */
import type { ParameterSpec } from '../../../../generated/catalog-format.ts';
import { GatewayError } from '../../base/errors.ts';
import { pointerToken } from '../../base/json-value.ts';
import { traversalIn } from './path-traversal.ts';
import { encodeStrict } from './percent-encode.ts';

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** Where one parameter's expansion is in the expanded path. */
interface Expansion {
  name: string;
  field: string;
  start: number;
  end: number;
}

export function expandPath(
  template: string,
  parameters: readonly ParameterSpec[],
  values: Readonly<Record<string, unknown>> | undefined,
): string {
  const byName = pathParameters(parameters);
  const expansions: Expansion[] = [];
  let path = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    const field = `/path/${pointerToken(name)}`;
    const value = values?.[name];
    if (value === undefined || value === null)
      throw new GatewayError('path_parameter_refused', `path parameter ${name} is required`, {
        field,
      });
    path += template.slice(last, match.index);
    const text = serializePathValue(name, value, byName.get(name), field);
    expansions.push({ name, field, start: path.length, end: path.length + text.length });
    path += text;
    last = match.index + match[0].length;
  }
  path += template.slice(last);
  ensureNoStep(path, expansions);
  return path;
}

/** Each segment of the path that holds an expansion, checked as the provider may decode it. */
function ensureNoStep(path: string, expansions: readonly Expansion[]): void {
  if (expansions.length === 0) return;
  let start = 0;
  while (start <= path.length) {
    const slash = path.indexOf('/', start);
    const end = slash < 0 ? path.length : slash;
    const within = expansions.find((e) => e.start < end && e.end > start);
    if (within !== undefined) {
      const why = traversalIn(path.slice(start, end));
      if (why !== undefined) throw refused(within.name, within.field, why);
    }
    start = end + 1;
  }
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

/** The value as text when it cannot step out of the path; otherwise `path_parameter_refused`. */
function safeSegment(value: unknown, name: string, field: string): string {
  if (typeof value === 'object' && value !== null)
    throw new GatewayError('path_parameter_refused', 'a path value must be text or a number', {
      field,
    });
  const text = String(value);
  if (text === '') throw refused(name, field, 'is empty');
  const why = traversalIn(text);
  if (why !== undefined) throw refused(name, field, why);
  return text;
}

function refused(name: string, field: string, why: string): GatewayError {
  return new GatewayError(
    'path_parameter_refused',
    `path parameter ${name} ${why}; it may not step out of the path`,
    { field },
  );
}
