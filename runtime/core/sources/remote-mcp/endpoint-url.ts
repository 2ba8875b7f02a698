/**
 * The address of a remote MCP server, as an operator types or pastes it:
 * absolute `https:` (plain `http:` only under the development policy, which
 * also makes loopback and private networks reachable), no embedded
 * credentials, no fragment. Refusals are `remote_url_invalid` naming the field.
 */
import { GatewayError } from '../../base/errors.ts';

export const URL_MAX = 2_048;

export interface EndpointUrlPolicy {
  /** The development policy (`PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS`). */
  allowPrivateNetworks: boolean;
}

export function endpointUrlOrThrow(given: string, policy: EndpointUrlPolicy, field = 'url'): URL {
  const refuse = (why: string): never => {
    throw new GatewayError('remote_url_invalid', `${field}: ${why}`, { field });
  };
  if (given.length > URL_MAX) refuse(`an address of at most ${URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(given.trim());
  } catch {
    return refuse('expected an absolute address such as https://mcp.example.com/mcp');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    refuse(`expected an https address, got a ${url.protocol} one`);
  if (url.protocol === 'http:' && !policy.allowPrivateNetworks)
    refuse(
      'expected https; plain http is for development only (PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS=1)',
    );
  if (url.username !== '' || url.password !== '')
    refuse('the address embeds credentials; give them as a key or headers instead');
  if (url.hash !== '') refuse('the address has a fragment (#…); remove it');
  return url;
}

/** The address as stored and shown: what `endpointUrlOrThrow` accepted, serialised. */
export function endpointUrlText(url: URL): string {
  return url.href;
}
