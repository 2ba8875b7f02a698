/**
 * Builds the provider HTTP request for one catalog action from arguments that
 * have already passed the action's input schema. Every place a value lands is
 * checked: server variables against their allowlist, path values against
 * leaving their segment, header names against the transport's own, header
 * values against control characters. The result names the logical host (the
 * one the checks were made against), even when a development override sends
 * the request elsewhere.
 */
import type { CatalogAction } from '../../../../generated/catalog-format.ts';
import { CATALOG_BODY_HEADER_NAMES } from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import { pointerToken } from '../../base/json-value.ts';
import { assertHeaderAllowed } from '../../outbound/header-rules.ts';
import { cookieHeader, headerText, serializeQuery } from './parameter-style.ts';
import { expandPath } from './path-template.ts';
import { encodeBody, type FileParts } from './request-body.ts';
import { resolveServerUrl } from './server-url.ts';

/** An action's arguments, grouped by where they go: the shape of every `inputSchema`. */
export interface ActionArguments {
  server?: Record<string, unknown>;
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  header?: Record<string, unknown>;
  cookie?: Record<string, unknown>;
  body?: unknown;
  /** Another offered media type for the body (the action's `contentType` argument). */
  contentType?: string;
  /** Per multipart file part: its filename and content type. */
  files?: FileParts;
}

export interface RestRequestContext {
  /** The connection's settings (e.g. `metro`), the fallback for server variables. */
  settings: Readonly<Record<string, string>>;
  /**
   * Development only: rewrite the checked URL (e.g. to a Prism mock on loopback).
   * Applied after every check; `host` stays the logical one.
   */
  hostOverride?: (url: URL) => URL;
}

export interface RestRequest {
  method: string;
  url: URL;
  /** Lowercase names: parameter headers, `cookie`, `content-type`. No credential. */
  headers: Record<string, string>;
  /** Text, or bytes (decoded base64, multipart with files). */
  body?: string | Uint8Array;
  /** The logical host name the request is for; what host allowlists are checked against. */
  host: string;
}

export function buildRestRequest(
  action: CatalogAction,
  args: ActionArguments,
  context: RestRequestContext,
): RestRequest {
  const { request } = action;
  const base = resolveServerUrl(request.server, args.server, context.settings);
  const path = expandPath(request.path, request.parameters, args.path);
  // The base ends at its host or path: only a path from the root keeps it that way.
  if (path !== '' && !path.startsWith('/'))
    throw new GatewayError('internal', `the action's path ${request.path} does not start with /`);
  const query = serializeQuery(request.parameters, args.query);
  const url = new URL(`${base.prefix}${path}${query === '' ? '' : `?${query}`}`);

  const headers: Record<string, string> = {};
  for (const spec of request.parameters) {
    if (spec.in !== 'header') continue;
    const value = args.header?.[spec.name];
    if (value === undefined) continue;
    const text = headerText(spec, value);
    assertHeaderAllowed(spec.name, text, `/header/${pointerToken(spec.name)}`, {
      alsoRefuse: CATALOG_BODY_HEADER_NAMES,
    });
    headers[spec.name.toLowerCase()] = text;
  }
  const cookie = cookieHeader(request.parameters, args.cookie);
  if (cookie !== undefined) headers.cookie = cookie;

  let body: string | Uint8Array | undefined;
  if (args.body !== undefined) {
    if (request.body === null)
      throw new GatewayError('arguments_invalid', `${action.name} takes no body; remove it`, {
        field: '/body',
      });
    const encoded = encodeBody(request.body, args.body, {
      ...(args.contentType === undefined ? {} : { contentType: args.contentType }),
      ...(args.files === undefined ? {} : { files: args.files }),
    });
    headers['content-type'] = encoded.contentType;
    body = encoded.bytes;
  } else if (request.body?.required) {
    throw new GatewayError('arguments_invalid', `${action.name} needs a body`, { field: '/body' });
  }

  return {
    method: request.method.toUpperCase(),
    url: context.hostOverride ? context.hostOverride(url) : url,
    headers,
    ...(body === undefined ? {} : { body }),
    host: base.host,
  };
}
