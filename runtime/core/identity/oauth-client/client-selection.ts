/**
 * Which OAuth client a sign-in uses (seed 000 "How sign-in gets a client"),
 * in this order, the operator never choosing:
 *
 * 1. the deployment's: `PORTCULLIS_TOOL_OAUTH_<CONNECTION>_CLIENT_ID` /
 *    `_SECRET`, else the unsuffixed pair; always wins when set;
 * 2. the material stored for the connection, when its binding (issuer,
 *    resource, callback, workspace) is the sign-in's;
 * 3. a Client ID Metadata Document: the server advertises
 *    `client_id_metadata_document_supported` and the deployment has a
 *    public https document URL; nothing is registered;
 * 4. dynamic client registration (RFC 7591): a public client
 *    (`token_endpoint_auth_method: none` where the server allows it),
 *    `application_type: web`, the code and refresh grants;
 * 5. the client the operator entered.
 *
 * A minted client (CIMD, DCR) whose binding no longer holds is registered
 * again; one the operator supplied is not (`oauth_client_rebind_required`):
 * Portcullis cannot register on their behalf in a console it does not
 * control. Registration happens only when the caller says it may (an
 * explicit operator connect after validated discovery).
 */
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { GRANT_TYPES, publicDocumentUrl } from './client-metadata.ts';
import type {
  AuthorizationServerMetadata,
  ClientBinding,
  ClientMaterial,
  ClientSource,
  ObtainClient,
  ObtainClientOptions,
  SuppliedClient,
  TokenEndpointAuthMethod,
  UpstreamOAuthDiscovery,
} from './engine-contract.ts';
import { oauthFailure } from './oauth-errors.ts';
import { libraryOptions } from './oauth-http.ts';

export const obtainClient: ObtainClient = async (discovery, binding, options) => {
  const now = (options.context.now ?? (() => new Date()))();
  const preconfigured = preconfiguredClient(options.connection, options.env ?? {});
  if (preconfigured)
    return keep(options, supplied(preconfigured, 'preconfigured', discovery, binding, now));

  const stored = await options.store.load();
  if (stored && stored.source !== 'preconfigured') {
    const bound = sameBinding(stored.binding, binding);
    if (bound && !secretExpired(stored, now)) return stored;
    if (stored.source === 'operator' && !options.operatorClient)
      throw new GatewayError(
        'oauth_client_rebind_required',
        `the client you entered was registered for another authorization server, resource or callback (now ${new URL(binding.issuer).host}); register one there and enter it again`,
        { field: 'client_id', detail: { changed: changedParts(stored.binding, binding) } },
      );
  }

  const { metadata } = discovery;
  const mayMint = options.mayRegister === true;
  const documentUrl = publicDocumentUrl(options.clientMetadataUrl);
  if (metadata.client_id_metadata_document_supported && documentUrl) {
    if (!mayMint) throw registrationNotAllowed();
    return keep(options, {
      clientId: documentUrl,
      tokenEndpointAuthMethod: 'none',
      source: 'cimd',
      binding,
      obtainedAt: now.toISOString(),
    });
  }
  if (metadata.registration_endpoint) {
    if (!mayMint) throw registrationNotAllowed();
    return keep(options, await register(discovery, binding, options, now));
  }
  if (options.operatorClient)
    return keep(options, supplied(options.operatorClient, 'operator', discovery, binding, now));
  throw new GatewayError(
    'oauth_client_required',
    `${new URL(binding.issuer).host} offers neither client metadata documents nor dynamic registration: register a client there with the callback ${binding.redirectUri} and enter its client id (and secret)`,
    { field: 'client_id', detail: { redirectUri: binding.redirectUri } },
  );
};

/** The deployment's client for a connection: the connection's own pair, else the unsuffixed one. */
export function preconfiguredClient(
  connection: string,
  env: Readonly<Record<string, string | undefined>>,
): SuppliedClient | undefined {
  const suffix = connection.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  for (const prefix of [`PORTCULLIS_TOOL_OAUTH_${suffix}_`, 'PORTCULLIS_TOOL_OAUTH_']) {
    const clientId = env[`${prefix}CLIENT_ID`]?.trim();
    if (!clientId) continue;
    const clientSecret = env[`${prefix}CLIENT_SECRET`];
    return clientSecret ? { clientId, clientSecret } : { clientId };
  }
  return undefined;
}

export function sameBinding(a: ClientBinding, b: ClientBinding): boolean {
  return (
    a.issuer === b.issuer &&
    a.resource === b.resource &&
    a.redirectUri === b.redirectUri &&
    a.workspaceId === b.workspaceId
  );
}

function changedParts(a: ClientBinding, b: ClientBinding): string[] {
  return (['issuer', 'resource', 'redirectUri', 'workspaceId'] as const).filter(
    (part) => a[part] !== b[part],
  );
}

function secretExpired(client: ClientMaterial, now: Date): boolean {
  return (
    client.secretExpiresAt !== undefined && Date.parse(client.secretExpiresAt) <= now.getTime()
  );
}

function registrationNotAllowed(): GatewayError {
  return new GatewayError(
    'oauth_sign_in_required',
    'a new client must be registered with the authorization server, which happens only when an operator connects: sign in again',
  );
}

function supplied(
  client: SuppliedClient,
  source: Extract<ClientSource, 'preconfigured' | 'operator'>,
  discovery: UpstreamOAuthDiscovery,
  binding: ClientBinding,
  now: Date,
): ClientMaterial {
  return {
    clientId: client.clientId,
    ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
    tokenEndpointAuthMethod: client.clientSecret ? secretMethod(discovery.metadata) : 'none',
    source,
    binding,
    obtainedAt: now.toISOString(),
  };
}

/** How a client with a secret authenticates: Basic unless the server lists only the form post. */
function secretMethod(metadata: AuthorizationServerMetadata): TokenEndpointAuthMethod {
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (methods === undefined || methods.includes('client_secret_basic'))
    return 'client_secret_basic';
  return methods.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/** What to ask DCR for: a public client where the server allows one. */
function requestedMethod(metadata: AuthorizationServerMetadata): TokenEndpointAuthMethod {
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (methods === undefined || methods.includes('none')) return 'none';
  return secretMethod(metadata);
}

async function register(
  discovery: UpstreamOAuthDiscovery,
  binding: ClientBinding,
  options: ObtainClientOptions,
  now: Date,
): Promise<ClientMaterial> {
  const requested = requestedMethod(discovery.metadata);
  let registered: Awaited<ReturnType<typeof oauth.processDynamicClientRegistrationResponse>>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      discovery.metadata as oauth.AuthorizationServer,
      {
        client_name: options.clientName ?? 'Portcullis',
        redirect_uris: [binding.redirectUri],
        grant_types: GRANT_TYPES,
        response_types: ['code'],
        token_endpoint_auth_method: requested,
        application_type: 'web',
      },
      libraryOptions(options.context),
    );
    registered = await oauth.processDynamicClientRegistrationResponse(await tolerated(response));
  } catch (error) {
    throw await oauthFailure(error, 'registration', false);
  }
  const method = registered.token_endpoint_auth_method;
  const expires = registered.client_secret_expires_at;
  return {
    clientId: registered.client_id,
    ...(typeof registered.client_secret === 'string' && registered.client_secret !== ''
      ? { clientSecret: registered.client_secret }
      : {}),
    tokenEndpointAuthMethod:
      method === 'none' || method === 'client_secret_basic' || method === 'client_secret_post'
        ? method
        : requested,
    source: 'dcr',
    binding,
    obtainedAt: now.toISOString(),
    ...(typeof expires === 'number' && expires > 0
      ? { secretExpiresAt: new Date(expires * 1000).toISOString() }
      : {}),
  };
}

/**
 * RFC 7591 §3.2.1 read as deployed servers answer: 201, or 200 with the same
 * body; a `client_secret` without the REQUIRED `client_secret_expires_at`
 * read as one that does not expire (0), as most clients do.
 */
async function tolerated(response: Response): Promise<Response> {
  if (response.status !== 200 && response.status !== 201) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response;
  }
  if (!isPlainObject(body)) return response;
  if (body.client_secret !== undefined && body.client_secret_expires_at === undefined)
    body.client_secret_expires_at = 0;
  return new Response(JSON.stringify(body), {
    status: 201,
    headers: { 'content-type': 'application/json' },
  });
}

async function keep(options: ObtainClientOptions, client: ClientMaterial): Promise<ClientMaterial> {
  await options.store.save(client);
  return client;
}
