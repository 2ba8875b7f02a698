/**
 * The base URL of one call, from the action's server template. Each variable
 * comes from the call (`args.server`), else the connection setting the
 * variable names, else its default; operator-only variables never come from
 * the call. Every value, wherever it came from, must be in the variable's
 * `enum` (the host allowlist), match its `pattern`, and hold nothing that could
 * change which host or path it lands in.
 */
import type { ServerTemplate, ServerVariableSpec } from '../../../../generated/catalog-format.ts';
import { BoundedCache } from '../../base/bounded-cache.ts';
import { GatewayError } from '../../base/errors.ts';
import { pointerToken } from '../../base/json-value.ts';
import { hasControlCharacter } from './path-template.ts';

const PLACEHOLDER = /\{([^{}]+)\}/g;
/** Characters that would move a value out of its place in a URL (or hide such a move). */
const FORBIDDEN = /[/?#@:%\\[\]\s]/u;

const patterns = new Map<string, RegExp>();

/** A checked base URL: paths are appended to `prefix` (no trailing slash). */
export interface ServerBase {
  prefix: string;
  /** The URL standard's host: the port kept unless it is the default. */
  host: string;
}

/** Base URLs checked so far, by their text (a few per action: one per metro). */
const bases = new BoundedCache<ServerBase>(10_000);

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
  const text = server.url.replace(PLACEHOLDER, (_match, name: string) =>
    variableValue(name, server.variables[name], given, settings),
  );
  return bases.get(text, parseBase);
}

function parseBase(text: string): ServerBase {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new GatewayError('internal', 'the action has a server URL that does not parse', {
      cause,
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new GatewayError('internal', `the action's server URL is ${url.protocol}, not http(s)`);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    throw new GatewayError('internal', 'the action has a server URL with credentials or a query');
  return { prefix: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, host: url.host };
}

function variableValue(
  name: string,
  spec: ServerVariableSpec | undefined,
  given: Readonly<Record<string, unknown>> | undefined,
  settings: Readonly<Record<string, string>>,
): string {
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
  if (value === '') throw refused(name, `from ${source} is empty`);
  if (FORBIDDEN.test(value) || hasControlCharacter(value) || value.includes('..'))
    throw refused(name, `from ${source} holds a character that is not allowed in a server name`);
  if (spec.enum !== undefined && !spec.enum.includes(value))
    throw refused(name, `from ${source} is not one of ${spec.enum.join(', ')}`);
  if (spec.pattern !== undefined && !patternOf(spec.pattern).test(value))
    throw refused(name, `from ${source} does not match ${spec.pattern}`);
  return value;
}

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
