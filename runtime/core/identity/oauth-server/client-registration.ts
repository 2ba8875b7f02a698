/**
 * Dynamic client registration (RFC 7591) for public clients only: PKCE with
 * `token_endpoint_auth_method: none`, the code and refresh grants, and
 * redirect URIs that are https or loopback http (and, when the deployment
 * keeps an allowlist, on it). Registering grants nothing by itself: a person
 * still signs in and approves on the consent page.
 */
import { randomBytes } from 'node:crypto';
import { isPlainObject } from '../../base/json-value.ts';
import type { RegisteredClient } from '../../model/oauth.ts';
import { OAuthError } from './oauth-error.ts';
import { type RedirectAllowlist, redirectUriProblem } from './redirect-uris.ts';

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2_000;
const MAX_NAME_LENGTH = 100;

/** What a registration reply says about the client (RFC 7591 §3.2.1). */
export interface ClientInformation {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: 'none';
  grant_types: string[];
  response_types: string[];
}

export function newClientId(): string {
  return `pcc_${randomBytes(18).toString('base64url')}`;
}

/** The client to store, from a registration request's JSON body; an `OAuthError` naming the field otherwise. */
export function clientFromRegistration(
  body: unknown,
  allowlist: RedirectAllowlist,
  at: Date,
): RegisteredClient {
  if (!isPlainObject(body)) {
    throw new OAuthError('invalid_client_metadata', 'the body must be a JSON object');
  }
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      'token_endpoint_auth_method: only public clients (none, with PKCE) may register',
    );
  }
  for (const [field, allowed] of [
    ['grant_types', ['authorization_code', 'refresh_token']],
    ['response_types', ['code']],
  ] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (!Array.isArray(value) || value.some((v) => !(allowed as readonly unknown[]).includes(v))) {
      throw new OAuthError(
        'invalid_client_metadata',
        `${field}: expected a list of ${allowed.join(', ')}`,
      );
    }
  }
  const redirectUris = redirectUrisOf(body.redirect_uris, allowlist, 'invalid_redirect_uri');
  const name = body.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > MAX_NAME_LENGTH)) {
    throw new OAuthError(
      'invalid_client_metadata',
      `client_name: expected a string of at most ${MAX_NAME_LENGTH} characters`,
    );
  }
  return {
    id: newClientId(),
    name: typeof name === 'string' && name.trim() !== '' ? name.trim() : 'an unnamed client',
    redirectUris,
    createdAt: at.toISOString(),
  };
}

/** A client document's `redirect_uris`, checked: a non-empty list of acceptable, allowed URIs. */
export function redirectUrisOf(
  value: unknown,
  allowlist: RedirectAllowlist,
  error: 'invalid_redirect_uri' | 'invalid_client_metadata',
): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REDIRECT_URIS) {
    throw new OAuthError(error, `redirect_uris: expected a list of 1 to ${MAX_REDIRECT_URIS} URLs`);
  }
  for (const [index, uri] of value.entries()) {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) {
      throw new OAuthError(error, `redirect_uris[${index}]: expected a URL`);
    }
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError(error, `redirect_uris[${index}] ${problem}`);
    if (!allowlist.allows(uri)) {
      throw new OAuthError(
        error,
        `redirect_uris[${index}] is not on this deployment's allowlist (PORTCULLIS_OAUTH_REDIRECT_URIS)`,
      );
    }
  }
  return [...new Set(value as string[])];
}

export function clientInformation(client: RegisteredClient): ClientInformation {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}
