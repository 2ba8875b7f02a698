/**
 * The discovery documents: protected resource metadata (RFC 9728) for each
 * MCP endpoint, and authorization server metadata (RFC 8414, also served as
 * `openid-configuration`, which some clients ask for first). The issuer is
 * exactly the public URL; each endpoint's resource is the public URL plus its
 * path, the one value used as `resource`, `aud` and in challenges.
 */
import { SCOPES_SUPPORTED } from '../principals/scopes.ts';

export const MCP_PATH = '/mcp';
export const CONNECTION_MCP_PREFIX = '/mcp/c/';
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function resourceOf(issuer: string, path: string = MCP_PATH): string {
  return `${issuer}${path}`;
}

/** Where an endpoint's protected resource metadata is (the path-aware form of RFC 9728 §3.1). */
export function resourceMetadataUrl(issuer: string, path: string = MCP_PATH): string {
  return `${issuer}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

export function protectedResourceMetadata(issuer: string, path: string, documentation: string) {
  return {
    resource: resourceOf(issuer, path),
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES_SUPPORTED],
    bearer_methods_supported: ['header'],
    resource_name: 'Portcullis',
    resource_documentation: documentation,
  };
}

export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    jwks_uri: `${issuer}/oauth/jwks`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    ],
    code_challenge_methods_supported: ['S256'],
    // Public clients: none; machine clients an operator registered: a secret or their keys.
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'PS256', 'EdDSA'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES_SUPPORTED],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    // openid-configuration readers expect these; no ID tokens are issued.
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256', 'RS256'],
  };
}
