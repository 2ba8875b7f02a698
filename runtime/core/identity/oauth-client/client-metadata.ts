/**
 * This deployment's Client ID Metadata Document (seed 000 tier 2): when
 * `PORTCULLIS_PUBLIC_URL` is public https, Portcullis serves, without
 * authentication, a document holding only its callback and the grant,
 * response and auth methods it uses, and presents the document's URL as
 * its `client_id` to authorization servers that advertise
 * `client_id_metadata_document_supported`. They fetch it server to server,
 * so a loopback, private or plain-http deployment has none and falls
 * through to dynamic registration.
 */
import { isIP } from 'node:net';
import { refusedRange } from '../../outbound/address-policy.ts';
import { isLoopbackHost } from './endpoint-check.ts';
import type { BuildClientMetadataDocument, ClientMetadataDocument } from './engine-contract.ts';

/** Where this deployment serves its Client ID Metadata Document (unauthenticated). */
export const CLIENT_METADATA_PATH = '/connect/oauth/client-metadata.json';
/** Where the authorization server sends the person back. */
export const CALLBACK_PATH = '/connect/oauth/callback';

/** The grants a Portcullis client uses: the code, and refresh tokens (SEP-2207). */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'];

export const buildClientMetadataDocument: BuildClientMetadataDocument = (
  clientMetadataUrl,
  redirectUri,
) => ({
  client_id: clientMetadataUrl,
  client_name: 'Portcullis',
  redirect_uris: [redirectUri],
  grant_types: GRANT_TYPES,
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  application_type: 'web',
});

/** The document URL, only when it is public https (an authorization server must be able to fetch it). */
export function publicDocumentUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' || url.hash !== '' || url.username !== '') return undefined;
    if (isLoopbackHost(url.hostname)) return undefined;
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0 && refusedRange(literal, { allowPrivateNetworks: false }) !== undefined)
      return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** Where this deployment's sign-ins come back to: `<public url>/connect/oauth/callback`. */
export function callbackUrl(publicUrl: URL): string {
  return urlUnder(publicUrl, CALLBACK_PATH);
}

/** The document's URL for `obtainClient`'s `clientMetadataUrl`, or undefined when the deployment has none. */
export function clientMetadataUrl(publicUrl: URL | undefined): string | undefined {
  if (publicUrl === undefined) return undefined;
  return publicDocumentUrl(urlUnder(publicUrl, CLIENT_METADATA_PATH));
}

/** The document this deployment serves, or undefined (then the route answers 404). */
export function clientMetadataDocument(
  publicUrl: URL | undefined,
): ClientMetadataDocument | undefined {
  const url = clientMetadataUrl(publicUrl);
  return url === undefined || publicUrl === undefined
    ? undefined
    : buildClientMetadataDocument(url, urlUnder(publicUrl, CALLBACK_PATH));
}

/** A path of this deployment's under its address (which may itself have a path, behind a proxy). */
export function urlUnder(base: URL, path: string): string {
  return `${base.origin}${base.pathname.replace(/\/$/, '')}${path}`;
}
