/**
 * What an address needs before its tools can be listed (seed 000's table):
 *
 * - nothing: the server answers `server/discover` (2026-07-28) or
 *   `initialize` (2025), and its tools can be discovered now;
 * - a browser sign-in: it answers 401 and publishes OAuth protected-resource
 *   metadata naming an authorization server (RFC 9728: the challenge's
 *   `resource_metadata`, then the path-aware well-known address, then the
 *   origin's);
 * - a key or headers: it answers 401 (or 403) and publishes no sign-in.
 *
 * An address that is not one, is private, or cannot be reached is a typed
 * error naming the field to change (`url`).
 */
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { ServerHello, UpstreamClient } from '../../mcp/client/upstream-client.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { RemoteTransport } from '../../model/remote.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import { endpointUrlOrThrow } from './endpoint-url.ts';

export type ProbeResult =
  | { kind: 'ready'; hello: ServerHello; transport: RemoteTransport }
  | { kind: 'sign_in_needed'; resourceMetadataUrl: string; authorizationServers: string[] }
  | { kind: 'credential_needed'; status: number };

export interface ProbeOptions {
  allowPrivateNetworks: boolean;
  /** Whether the target carries a key or headers (a 401 then blames them). */
  withCredential: boolean;
}

export async function probeEndpoint(
  upstream: UpstreamClient,
  http: GuardedClient,
  target: UpstreamTarget,
  options: ProbeOptions,
): Promise<ProbeResult> {
  try {
    const modern = await upstream.discover(target);
    if (modern) return { kind: 'ready', hello: modern, transport: 'streamable-http' };
    try {
      return {
        kind: 'ready',
        hello: await upstream.initialize(target),
        transport: 'streamable-http',
      };
    } catch (error) {
      // Not Streamable HTTP: perhaps the 2024-11-05 HTTP+SSE transport.
      if (!(error instanceof GatewayError) || !notStreamable(error)) throw error;
      const old = await upstream.openSse(target).catch(() => undefined);
      if (old) return { kind: 'ready', hello: old, transport: 'sse' };
      throw error;
    }
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const status = error.detail?.status;
    if (error.code === 'mcp_remote_status' && (status === 401 || status === 403)) {
      if (options.withCredential)
        throw new GatewayError(
          'remote_credential_refused',
          `the server refused the key or headers (HTTP ${status}); check their names and values`,
          { field: 'credential', detail: { status } },
        );
      const signIn =
        status === 401
          ? await signInMetadata(http, target.url, error.detail?.challenge, options)
          : undefined;
      return signIn ?? { kind: 'credential_needed', status };
    }
    throw probeError(error, target.url);
  }
}

/** Whether an initialize failure says the address speaks something else than Streamable HTTP. */
function notStreamable(error: GatewayError): boolean {
  if (error.code === 'mcp_remote_status') {
    const status = error.detail?.status;
    return status === 400 || status === 404 || status === 405 || status === 406;
  }
  return error.code === 'mcp_remote_invalid_json' || error.code === 'mcp_remote_malformed_response';
}

/** Where the operator should look when the probe failed: always the address. */
function probeError(error: GatewayError, url: URL): GatewayError {
  const host = url.host;
  switch (error.code) {
    case 'upstream_address_refused':
      return new GatewayError(
        'remote_url_private',
        `url: ${host} is on a private, loopback or reserved network, which Portcullis does not call (development only: PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS=1)`,
        { field: 'url', detail: { host }, cause: error },
      );
    case 'upstream_unreachable':
    case 'upstream_timeout':
    case 'upstream_deadline_exceeded':
    case 'write_outcome_unknown':
      return new GatewayError(
        'remote_unreachable',
        `url: ${host} could not be reached (${error.code}); check the address and the network`,
        { field: 'url', detail: { host, cause: error.code }, cause: error },
      );
    case 'mcp_remote_status':
    case 'mcp_remote_invalid_json':
    case 'mcp_remote_malformed_response':
    case 'mcp_remote_error':
    case 'mcp_remote_response_too_large':
      return new GatewayError(
        'remote_not_mcp',
        `url: ${host} answered, but not as an MCP server (${error.code}${error.detail?.status ? ` ${String(error.detail.status)}` : ''}); check the path (often /mcp)`,
        { field: 'url', detail: { host, cause: error.code }, cause: error },
      );
    default:
      return error;
  }
}

/** The protected-resource metadata, if the server publishes one that names an authorization server. */
async function signInMetadata(
  http: GuardedClient,
  url: URL,
  challenge: unknown,
  options: ProbeOptions,
): Promise<Extract<ProbeResult, { kind: 'sign_in_needed' }> | undefined> {
  const candidates: string[] = [];
  const hinted =
    typeof challenge === 'string' ? /resource_metadata="([^"]+)"/.exec(challenge)?.[1] : undefined;
  if (hinted !== undefined) candidates.push(hinted);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  candidates.push(`${url.origin}/.well-known/oauth-protected-resource${path}`);
  if (path !== '') candidates.push(`${url.origin}/.well-known/oauth-protected-resource`);
  for (const candidate of candidates) {
    let metadataUrl: URL;
    try {
      metadataUrl = endpointUrlOrThrow(candidate, options, 'resource_metadata');
    } catch {
      continue;
    }
    try {
      const reply = await http.send(
        { method: 'GET', url: metadataUrl, headers: { accept: 'application/json' } },
        { maxReplyBytes: 65_536 },
      );
      if (reply.status !== 200) continue;
      const document: unknown = JSON.parse(reply.body.toString('utf8'));
      if (!isPlainObject(document) || !Array.isArray(document.authorization_servers)) continue;
      const servers = document.authorization_servers.filter(
        (server): server is string => typeof server === 'string',
      );
      if (servers.length > 0)
        return {
          kind: 'sign_in_needed',
          resourceMetadataUrl: metadataUrl.href,
          authorizationServers: servers,
        };
    } catch {
      // Unreachable or not JSON: no discoverable sign-in there.
    }
  }
  return undefined;
}
