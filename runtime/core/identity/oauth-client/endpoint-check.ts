/**
 * The one check for every OAuth address a remote server chose (seed 000
 * "Endpoint addresses are validated before they are used"): in discovered
 * metadata, in a `WWW-Authenticate` hint, in a pasted config or a curated
 * definition. The authorization endpoint also becomes a top-level browser
 * navigation, so nothing but a plain `https:` page may pass.
 *
 * Accepted: an absolute, well-formed URL of at most 2,048 characters;
 * `https:`, or `http:` only for a loopback host under the development policy
 * or for this deployment's own origin; no userinfo; no fragment. Everything
 * else (`javascript:`, `data:`, `file:`, `https://a@b/`, `…#x`) is the 422
 * `oauth_<kind>_endpoint_rejected`, whose message and detail never repeat
 * the value (it is never stored either: the caller throws before keeping it).
 */
import ipaddr from 'ipaddr.js';
import { GatewayError } from '../../base/errors.ts';
import type {
  CheckOAuthEndpointUrl,
  OAuthEndpointKind,
  UpstreamOAuthPolicy,
} from './engine-contract.ts';

const URL_MAX = 2_048;

/** The metadata property each kind of address is usually found in. */
const FIELDS: Record<OAuthEndpointKind, string> = {
  resource_metadata: 'resource_metadata',
  issuer: 'authorization_servers',
  authorization: 'authorization_endpoint',
  token: 'token_endpoint',
  registration: 'registration_endpoint',
  revocation: 'revocation_endpoint',
};

/** The parsed address, or why it is refused (the detail's `why`). */
export function endpointRefusal(
  value: unknown,
  policy: UpstreamOAuthPolicy,
): { why: Refusal } | { why: ''; url: URL } {
  if (typeof value !== 'string' || value === '') return { why: 'not_a_string' };
  if (value.length > URL_MAX) return { why: 'too_long' };
  // A URL parser trims and repairs what a human would not read as one address.
  if (/[\s\p{Cc}\\]/u.test(value)) return { why: 'malformed' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { why: 'not_absolute' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { why: 'scheme' };
  if (url.username !== '' || url.password !== '' || hasUserinfo(value))
    return { why: 'credentials' };
  if (url.hash !== '' || value.includes('#')) return { why: 'fragment' };
  if (url.protocol === 'http:' && !plainHttpAllowed(url, policy)) return { why: 'plain_http' };
  return { why: '', url };
}

export const checkOAuthEndpointUrl: CheckOAuthEndpointUrl = (value, kind, policy, field) => {
  const verdict = endpointRefusal(value, policy);
  if (verdict.why === '') return verdict.url;
  const { why } = verdict;
  const name = field ?? FIELDS[kind];
  throw new GatewayError(`oauth_${kind}_endpoint_rejected`, `${name}: ${MESSAGES[why]}`, {
    field: name,
    detail: { kind, why },
  });
};

type Refusal =
  | 'not_a_string'
  | 'too_long'
  | 'malformed'
  | 'not_absolute'
  | 'scheme'
  | 'credentials'
  | 'fragment'
  | 'plain_http';

const MESSAGES: Record<Refusal, string> = {
  not_a_string: 'the server gave no address',
  too_long: `the address is longer than ${URL_MAX} characters`,
  malformed: 'the address holds spaces, control characters or backslashes',
  not_absolute: 'the address is not an absolute URL',
  scheme: 'only https addresses are followed (this one has another scheme)',
  credentials: 'the address embeds a user name or password, which reads as another site',
  fragment: 'the address has a fragment (#…)',
  plain_http:
    'only https addresses are followed; plain http only for loopback under the development policy (PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS=1) or for this deployment',
};

/** `user@` before the host, however the parser would read it. */
function hasUserinfo(value: string): boolean {
  const start = value.indexOf('//');
  if (start < 0) return false;
  const rest = value.slice(start + 2);
  const end = rest.search(/[/?#]/);
  return (end < 0 ? rest : rest.slice(0, end)).includes('@');
}

function plainHttpAllowed(url: URL, policy: UpstreamOAuthPolicy): boolean {
  if (policy.ownOrigin !== undefined && url.origin === new URL(policy.ownOrigin).origin)
    return true;
  return policy.allowPrivateNetworks && isLoopbackHost(url.hostname);
}

/** `localhost`, `*.localhost` (RFC 6761), 127.0.0.0/8 and `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.process(bare);
  return parsed.range() === 'loopback';
}
