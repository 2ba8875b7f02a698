/**
 * RFC 9728 protected-resource discovery, then RFC 8414 authorization-server
 * discovery, for an MCP endpoint that answered 401 (MCP 2025-11-25
 * "Authorization Server Discovery"; seed 000 "Protocol conformance"):
 *
 * - the protected-resource metadata from the challenge's `resource_metadata`
 *   hint, then `/.well-known/oauth-protected-resource<path>`, then the
 *   origin's; its `resource` must name this endpoint (same origin, a path
 *   that is the endpoint's or one of its parents);
 * - the first authorization server's metadata: for an issuer with a path,
 *   `/.well-known/oauth-authorization-server<path>`,
 *   `/.well-known/openid-configuration<path>`,
 *   `<path>/.well-known/openid-configuration`; without, the first two. A
 *   document whose `issuer` is not the issuer the URL was built from is
 *   discarded (oauth4webapi's `processDiscoveryResponse` checks it);
 * - every address in either document passes `checkOAuthEndpointUrl`.
 */
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { parseBearerChallenge } from './bearer-challenge.ts';
import { checkOAuthEndpointUrl } from './endpoint-check.ts';
import type {
  AuthorizationServerMetadata,
  Discover,
  UpstreamOAuthContext,
  UpstreamOAuthDiscovery,
} from './engine-contract.ts';
import { getJson } from './oauth-http.ts';

/** RFC 8707 `resource` for an endpoint: origin and path, no query, no fragment, no lone `/`. */
export function canonicalResource(mcpUrl: URL): string {
  return mcpUrl.pathname === '/' ? mcpUrl.origin : `${mcpUrl.origin}${mcpUrl.pathname}`;
}

export const discover: Discover = async (mcpUrl, challengeHeader, context) => {
  const challenge = parseBearerChallenge(challengeHeader);
  const found = await protectedResourceMetadata(mcpUrl, challenge?.resourceMetadata, context);
  const { document } = found;
  const resource = resourceOf(document.resource, mcpUrl);
  const servers = (document.authorization_servers as unknown[]).filter(
    (server): server is string => typeof server === 'string',
  );
  const issuerUrl = checkOAuthEndpointUrl(
    servers[0],
    'issuer',
    context.policy,
    'authorization_servers',
  );
  const metadata = await authorizationServerMetadata(issuerUrl, context);
  const scopes = challenge?.scope?.length ? challenge.scope : stringsOf(document.scopes_supported);
  return {
    authKind: 'oauth',
    resource,
    resourceMetadataUrl: found.url.href,
    issuer: metadata.issuer,
    metadata,
    scopes: withOfflineAccess(scopes, metadata),
  } satisfies UpstreamOAuthDiscovery;
};

/**
 * SEP-2207: a client that wants a refresh token asks for `offline_access`
 * when the authorization server lists it; never otherwise, and never as
 * the only scope (that would replace the server's default scope).
 */
function withOfflineAccess(scopes: string[], metadata: AuthorizationServerMetadata): string[] {
  if (scopes.length === 0 || scopes.includes('offline_access')) return scopes;
  if (!metadata.scopes_supported?.includes('offline_access')) return scopes;
  return [...scopes, 'offline_access'];
}

async function protectedResourceMetadata(
  mcpUrl: URL,
  hint: string | undefined,
  context: UpstreamOAuthContext,
): Promise<{ url: URL; document: Record<string, unknown> }> {
  const candidates: URL[] = [];
  if (hint !== undefined)
    candidates.push(checkOAuthEndpointUrl(hint, 'resource_metadata', context.policy));
  const path = mcpUrl.pathname === '/' ? '' : mcpUrl.pathname.replace(/\/$/, '');
  candidates.push(new URL(`/.well-known/oauth-protected-resource${path}`, mcpUrl.origin));
  if (path !== '') candidates.push(new URL('/.well-known/oauth-protected-resource', mcpUrl.origin));
  let lastStatus: number | undefined;
  for (const url of candidates) {
    const response = await getJson(context.http, url);
    lastStatus = response.status;
    const document = response.status === 200 ? await jsonOf(response) : undefined;
    if (
      isPlainObject(document) &&
      Array.isArray(document.authorization_servers) &&
      document.authorization_servers.length > 0
    )
      return { url, document };
  }
  throw new GatewayError(
    'oauth_discovery_failed',
    'the server publishes no protected resource metadata naming an authorization server (RFC 9728); give a key or headers instead',
    { detail: { step: 'protected_resource', tried: candidates.length, lastStatus } },
  );
}

/**
 * The protected resource metadata's `resource`, as published (RFC 8707's
 * `resource` is sent exactly so), when it names this endpoint or a parent of
 * its path on its origin; `oauth_resource_mismatch` otherwise.
 */
function resourceOf(resource: unknown, mcpUrl: URL): string {
  let named: URL | undefined;
  try {
    named = typeof resource === 'string' ? new URL(resource) : undefined;
  } catch {
    named = undefined;
  }
  const parent = named?.pathname.replace(/\/$/, '') ?? '';
  const own = mcpUrl.pathname.replace(/\/$/, '');
  const matches =
    named !== undefined &&
    named.hash === '' &&
    named.origin === mcpUrl.origin &&
    (parent === '' || own === parent || own.startsWith(`${parent}/`));
  if (!matches)
    throw new GatewayError(
      'oauth_resource_mismatch',
      `the protected resource metadata names another resource than ${mcpUrl.origin}${mcpUrl.pathname}; Portcullis does not sign in to it`,
      { field: 'resource', detail: { endpoint: canonicalResource(mcpUrl) } },
    );
  return resource as string;
}

/** The metadata addresses RFC 8414 §3.1 and OpenID Connect Discovery derive from an issuer. */
export function metadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/$/, '');
  const at = (well: string) => new URL(`${well}${path}`, issuer.origin);
  if (path === '')
    return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at('/.well-known/oauth-authorization-server'),
    at('/.well-known/openid-configuration'),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

async function authorizationServerMetadata(
  issuer: URL,
  context: UpstreamOAuthContext,
): Promise<AuthorizationServerMetadata> {
  let mismatched = false;
  for (const url of metadataUrls(issuer)) {
    const response = await getJson(context.http, url);
    if (response.status !== 200) continue;
    let document: oauth.AuthorizationServer;
    try {
      document = await oauth.processDiscoveryResponse(issuer, response);
    } catch (error) {
      if (
        error instanceof oauth.OperationProcessingError &&
        error.code === oauth.JSON_ATTRIBUTE_COMPARISON
      )
        mismatched = true;
      continue;
    }
    return checkedMetadata(document, context);
  }
  if (mismatched)
    throw new GatewayError(
      'oauth_issuer_mismatch',
      "the authorization server's metadata names another issuer than the one it was found for (RFC 8414 §3.3); it is not used",
      { field: 'authorization_servers', detail: { issuerHost: issuer.host } },
    );
  throw new GatewayError(
    'oauth_discovery_failed',
    'the authorization server publishes no metadata (RFC 8414) Portcullis can read',
    { detail: { step: 'authorization_server', issuerHost: issuer.host } },
  );
}

/** The fields the engine uses, each address checked, each list a list of strings. */
function checkedMetadata(
  document: oauth.AuthorizationServer,
  context: UpstreamOAuthContext,
): AuthorizationServerMetadata {
  const { policy } = context;
  const authorization = checkOAuthEndpointUrl(
    document.authorization_endpoint,
    'authorization',
    policy,
  );
  const token = checkOAuthEndpointUrl(document.token_endpoint, 'token', policy);
  const metadata: AuthorizationServerMetadata = {
    issuer: document.issuer,
    authorization_endpoint: authorization.href,
    token_endpoint: token.href,
  };
  if (document.registration_endpoint !== undefined)
    metadata.registration_endpoint = checkOAuthEndpointUrl(
      document.registration_endpoint,
      'registration',
      policy,
    ).href;
  if (document.revocation_endpoint !== undefined)
    metadata.revocation_endpoint = checkOAuthEndpointUrl(
      document.revocation_endpoint,
      'revocation',
      policy,
    ).href;
  for (const name of [
    'scopes_supported',
    'response_types_supported',
    'grant_types_supported',
    'code_challenge_methods_supported',
    'token_endpoint_auth_methods_supported',
    'revocation_endpoint_auth_methods_supported',
  ] as const) {
    if (Array.isArray(document[name])) metadata[name] = stringsOf(document[name]);
  }
  if (document.client_id_metadata_document_supported === true)
    metadata.client_id_metadata_document_supported = true;
  if (document.authorization_response_iss_parameter_supported === true)
    metadata.authorization_response_iss_parameter_supported = true;
  assertCodeFlowWithPkce(metadata);
  return metadata;
}

/** The authorization code flow with PKCE S256, where the server lists what it supports. */
function assertCodeFlowWithPkce(metadata: AuthorizationServerMetadata): void {
  const methods = metadata.code_challenge_methods_supported;
  const types = metadata.response_types_supported;
  if ((methods && !methods.includes('S256')) || (types && !types.includes('code')))
    throw new GatewayError(
      'oauth_discovery_failed',
      'the authorization server does not offer the authorization code flow with PKCE S256, which Portcullis requires',
      { field: 'code_challenge_methods_supported', detail: { step: 'authorization_server' } },
    );
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string' && item !== '').slice(0, 100)
    : [];
}

async function jsonOf(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}
