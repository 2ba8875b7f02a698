/**
 * The base URL of one call, from the action's server template. Each variable
 * comes from the call (`args.server`), else the connection setting the
 * variable names, else its default; operator-only variables never come from
 * the call. Every value, wherever it came from, must be in the variable's
 * `enum` (the host allowlist) and match its `pattern`, and fit its place
 * (`serverVariablePlaces`): a value in the host holds only a host name's
 * characters, a value that starts the path starts with `/`, a value in the
 * path holds no `?`, `#`, `\` or space. Then the URL built from them is
 * checked whole: http(s), the host as written (no credentials, no empty
 * label), and a path no segment of which is a `.` or `..` step in any
 * encoding (`path-traversal.ts`). The executor checks the host against the
 * catalog's allowlist.
 */
import type { ServerTemplate, ServerVariableSpec } from '../../../../generated/catalog-format.ts';
import {
  type ServerVariablePlace,
  serverVariablePlaces,
} from '../../../../generated/catalog-rules.ts';
import { BoundedCache } from '../../base/bounded-cache.ts';
import { GatewayError } from '../../base/errors.ts';
import { pointerToken } from '../../base/json-value.ts';
import { hasControlCharacter, traversalIn } from './path-traversal.ts';

const PLACEHOLDER = /\{([^{}]+)\}/g;
/** A host name's characters: what a value in the host may hold. */
const HOST_PART = /^[A-Za-z0-9._-]+$/;
/** What would end a path value's place or hide it: a query, a fragment, a backslash, a space. */
const NOT_IN_PATH = /[?#\\\s]/u;

/** A checked base URL: paths are appended to `prefix` (no trailing slash). */
export interface ServerBase {
  prefix: string;
  /** The URL standard's host: the port kept unless it is the default. */
  host: string;
}

/** One variable's value and where it is in the built URL. */
interface Placed {
  name: string;
  value: string;
  source: string;
  start: number;
  end: number;
}

/** Base URLs checked so far, by template and values (a few per action: one per metro). */
const bases = new BoundedCache<ServerBase>(10_000);
const placesOf = new WeakMap<ServerTemplate, Record<string, ServerVariablePlace>>();

export function resolveServerUrl(
  server: ServerTemplate,
  given: Readonly<Record<string, unknown>> | undefined,
  settings: Readonly<Record<string, string>>,
): ServerBase {
  if (given !== undefined) {
    for (const name of Object.keys(given)) {
      if (!Object.hasOwn(server.variables, name))
        throw refused(name, `is not a server variable of this action`);
    }
  }
  const places = placesFor(server);
  const placed: Placed[] = [];
  let text = '';
  let last = 0;
  for (const match of server.url.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    text += server.url.slice(last, match.index);
    const { value, source } = variableValue(name, server.variables[name], given, settings);
    ensureFitsPlace(name, value, source, places[name]!);
    placed.push({ name, value, source, start: text.length, end: text.length + value.length });
    text += value;
    last = match.index + match[0].length;
  }
  text += server.url.slice(last);
  // Control characters are refused above, so NUL separates the values unambiguously.
  const key =
    placed.length === 0 ? text : `${server.url}\0${placed.map((p) => p.value).join('\0')}`;
  return bases.get(key, () => checkedBase(text, placed));
}

function placesFor(server: ServerTemplate): Record<string, ServerVariablePlace> {
  let places = placesOf.get(server);
  if (places === undefined) {
    places = serverVariablePlaces(server);
    placesOf.set(server, places);
  }
  return places;
}

function variableValue(
  name: string,
  spec: ServerVariableSpec | undefined,
  given: Readonly<Record<string, unknown>> | undefined,
  settings: Readonly<Record<string, string>>,
): { value: string; source: string } {
  if (spec === undefined)
    throw new GatewayError('internal', `the server URL names ${name}, which it does not define`);
  const supplied = given?.[name];
  if (supplied !== undefined && spec.operatorOnly)
    throw refused(name, 'is set by the operator on the connection; remove it from the call');
  if (supplied !== undefined && typeof supplied !== 'string') throw refused(name, 'must be text');
  const fromSetting = spec.setting === undefined ? undefined : settings[spec.setting];
  const source =
    supplied !== undefined
      ? 'the call'
      : fromSetting !== undefined
        ? `the connection setting ${spec.setting}`
        : 'the default';
  const value = supplied ?? fromSetting ?? spec.default;
  if (value === undefined)
    throw refused(
      name,
      spec.setting === undefined
        ? 'is required; give it in the call'
        : `is required; give it in the call or set the connection setting ${spec.setting}`,
    );
  if (hasControlCharacter(value)) throw refused(name, `from ${source} holds a control character`);
  if (spec.enum !== undefined && !spec.enum.includes(value))
    throw refused(name, `from ${source} is not one of ${spec.enum.join(', ')}`);
  if (spec.pattern !== undefined && !patternOf(spec.pattern).test(value))
    throw refused(name, `from ${source} does not match ${spec.pattern}`);
  return { value, source };
}

function ensureFitsPlace(
  name: string,
  value: string,
  source: string,
  place: ServerVariablePlace,
): void {
  if (place === 'host') {
    if (value === '') throw refused(name, `from ${source} is empty`);
    if (!HOST_PART.test(value))
      throw refused(
        name,
        `from ${source} holds a character that is not allowed in a host name (letters, digits, -, _ and . only)`,
      );
    return;
  }
  if (place === 'path-start' && value !== '' && !value.startsWith('/'))
    throw refused(name, `from ${source} must start with / (it begins the URL's path)`);
  if (NOT_IN_PATH.test(value))
    throw refused(name, `from ${source} holds a ?, #, \\ or space, which may not be in a path`);
}

/** The built URL checked whole; a failure is the variable's whose value is where it fails. */
function checkedBase(text: string, placed: readonly Placed[]): ServerBase {
  const at = (start: number, end: number) =>
    placed.find((p) => p.start < end && p.end > start) ??
    placed.find((p) => p.start === start && start === end);
  const blame = (start: number, end: number, why: string): GatewayError => {
    const culprit = at(start, end);
    return culprit === undefined
      ? new GatewayError('internal', `the action's server URL ${why}`)
      : refused(culprit.name, `from ${culprit.source} makes a server URL that ${why}`);
  };

  const scheme = /^https?:\/\//i.exec(text);
  const hostStart = text.indexOf('://') + 3;
  if (scheme === null) throw blame(0, Math.max(hostStart, 1), 'is not http(s)');
  const pathStart = hostStart + text.slice(hostStart).search(/[/?#\\]|$/);
  const authority = text.slice(hostStart, pathStart);
  if (!URL.canParse(text)) throw blame(hostStart, pathStart, 'does not parse');
  const url = new URL(text);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    throw blame(hostStart, text.length, 'holds credentials, a query or a fragment');
  const hostname = authority.replace(/:\d*$/, '');
  if (url.hostname !== hostname.toLowerCase() || /^\.|\.\.|\.$/.test(hostname))
    throw blame(hostStart, pathStart, `does not name a host as written (${authority})`);
  if (pathStart < text.length && text[pathStart] !== '/')
    throw blame(pathStart, pathStart + 1, 'has a path that does not start with /');
  for (let start = pathStart + 1; start <= text.length; ) {
    const slash = text.indexOf('/', start);
    const end = slash < 0 ? text.length : slash;
    const why = traversalIn(text.slice(start, end));
    if (why !== undefined) throw blame(start, end, `has a path segment that ${why}`);
    start = end + 1;
  }
  return { prefix: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, host: url.host };
}

const patterns = new Map<string, RegExp>();

function patternOf(pattern: string): RegExp {
  let compiled = patterns.get(pattern);
  if (compiled === undefined) {
    compiled = new RegExp(pattern, 'u');
    patterns.set(pattern, compiled);
  }
  return compiled;
}

function refused(name: string, why: string): GatewayError {
  return new GatewayError('server_variable_refused', `server variable ${name} ${why}`, {
    field: `/server/${pointerToken(name)}`,
  });
}
