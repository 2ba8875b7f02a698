/**
 * How prompts and resources are named and answered to an agent: on `/mcp`
 * each is namespaced by its connection (a prompt `<connection>__<name>`, a
 * resource `<connection>+<uri>`, templates alike); on `/mcp/c/<connection>`
 * they keep the server's names. A server's reply reaches the agent in its
 * own era, and the server's "no such prompt or resource" as the gateway's.
 */
import { NEVER_CANCELLED } from '../base/cancellation.ts';
import { GatewayError } from '../base/errors.ts';
import {
  isInputRequired,
  type ListContext,
  type RequestContext,
} from '../mcp/server/tool-backend.ts';
import { isAppUri } from '../mcp/wire/apps.ts';
import { appUriOn } from '../sources/remote-mcp/remote-feature-contract.ts';

/** How names appear: namespaced on `/mcp`, as the server gives them on `/mcp/c/<connection>`. */
export type FeatureView = { only: undefined } | { only: string };

/** Every connection's, namespaced: the view of `/mcp`. */
export const ALL: FeatureView = { only: undefined };

/** A request with no client waiting on it beyond its answer: no progress, no log, no input. */
export function requestContextOf(context: ListContext): RequestContext {
  return {
    cancel: NEVER_CANCELLED,
    progress: () => {},
    log: () => {},
    input: undefined,
    era: context.era,
    clientCapabilities: context.clientCapabilities,
    trace: context.trace,
    span: context.span,
    protocolVersion: '',
  };
}

/** What a list is asked with when the endpoint says nothing of its client. */
export const NO_CONTEXT: ListContext = { era: 'legacy', clientCapabilities: {}, trace: undefined };

/** On `/mcp`, `<connection><separator><name>`; on `/mcp/c/<connection>`, the name as it is. */
export function split(
  view: FeatureView,
  name: string,
  separator: string,
): [string | undefined, string] {
  if (view.only !== undefined) return [view.only, name];
  const at = name.indexOf(separator);
  if (at <= 0) return [undefined, name];
  return [name.slice(0, at), name.slice(at + separator.length)];
}

/** A resource's name as the view gives it: on `/mcp`, an app's page `ui://<connection>/…`, another `<connection>+<uri>`. */
export function splitResource(view: FeatureView, uri: string): [string | undefined, string] {
  if (view.only === undefined && isAppUri(uri)) return appUriOn(uri);
  return split(view, uri, '+');
}

/** A result as the agent's era takes it (the server's era marks stripped; the endpoint adds its own). */
export function resultOf(
  outcome: Record<string, unknown>,
  context: RequestContext,
): Record<string, unknown> {
  if (isInputRequired(outcome)) return outcome;
  const { resultType: _type, _meta: _server, ...result } = outcome;
  if (context.era === 'legacy') {
    const { ttlMs: _ttl, cacheScope: _scope, ...legacy } = result;
    return legacy;
  }
  return result;
}

/** The server's "no such prompt or resource" as the gateway's own, so the agent's era says it its way. */
export function notFoundOf(
  error: unknown,
  method: string,
  shownName: string,
): GatewayError | undefined {
  if (!(error instanceof GatewayError) || error.code !== 'mcp_remote_error') return undefined;
  const rpcCode = error.detail?.rpcCode;
  if (rpcCode !== -32602 && rpcCode !== -32002) return undefined;
  if (method.startsWith('resources/'))
    return new GatewayError('resource_not_found', undefined, { detail: { uri: shownName } });
  return new GatewayError('invalid_params', `Invalid params: ${error.message.slice(0, 300)}`);
}
