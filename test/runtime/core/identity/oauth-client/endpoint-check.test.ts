/**
 * The one check every remote-chosen OAuth address passes (seed 000
 * "Endpoint addresses are validated before they are used"): each refusal is
 * `oauth_<kind>_endpoint_rejected` naming the field, and never repeats the
 * value.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError, publicError, REASONS } from '../../../../../runtime/core/base/errors.ts';
import {
  checkOAuthEndpointUrl,
  type UpstreamOAuthPolicy,
} from '../../../../../runtime/core/identity/oauth-client/upstream-oauth.ts';

const production: UpstreamOAuthPolicy = { allowPrivateNetworks: false };
const development: UpstreamOAuthPolicy = { allowPrivateNetworks: true };
const ownHttp: UpstreamOAuthPolicy = {
  allowPrivateNetworks: false,
  ownOrigin: 'http://gateway.internal:8080',
};

const cases: [string, { given: unknown; policy?: UpstreamOAuthPolicy; want: string }][] = [
  ['https passes', { given: 'https://as.example.com/authorize', want: 'ok' }],
  [
    'https with a port and a query passes',
    { given: 'https://as.example.com:8443/a?x=1', want: 'ok' },
  ],
  ['javascript: is refused', { given: 'javascript:alert(document.cookie)', want: 'scheme' }],
  ['data: is refused', { given: 'data:text/html,<script>alert(1)</script>', want: 'scheme' }],
  ['file: is refused', { given: 'file:///etc/passwd', want: 'scheme' }],
  ['ftp: is refused', { given: 'ftp://as.example.com/x', want: 'scheme' }],
  [
    'embedded credentials are refused',
    { given: 'https://accounts.google.com@evil.test/a', want: 'credentials' },
  ],
  [
    'a user and password are refused',
    { given: 'https://u:p@as.example.com/a', want: 'credentials' },
  ],
  ['a fragment is refused', { given: 'https://as.example.com/a#frag', want: 'fragment' }],
  ['an empty fragment is refused', { given: 'https://as.example.com/a#', want: 'fragment' }],
  ['a relative address is refused', { given: '/authorize', want: 'not_absolute' }],
  ['a backslash is refused', { given: 'https://as.example.com\\@evil.test/', want: 'malformed' }],
  ['whitespace is refused', { given: ' https://as.example.com/a', want: 'malformed' }],
  [
    'a control character is refused',
    { given: 'https://as.example.com/\u0000a', want: 'malformed' },
  ],
  ['a number is refused', { given: 42, want: 'not_a_string' }],
  [
    'an overlong address is refused',
    { given: `https://as.example.com/${'a'.repeat(2100)}`, want: 'too_long' },
  ],
  ['plain http is refused in production', { given: 'http://as.example.com/a', want: 'plain_http' }],
  [
    'plain http on loopback is refused in production',
    { given: 'http://127.0.0.1:9/a', want: 'plain_http' },
  ],
  [
    'plain http on loopback passes under development',
    { given: 'http://127.0.0.1:9/a', policy: development, want: 'ok' },
  ],
  [
    'plain http on localhost passes under development',
    { given: 'http://localhost:9/a', policy: development, want: 'ok' },
  ],
  [
    'plain http on [::1] passes under development',
    { given: 'http://[::1]:9/a', policy: development, want: 'ok' },
  ],
  [
    'plain http elsewhere is refused under development',
    { given: 'http://10.0.0.5/a', policy: development, want: 'plain_http' },
  ],
  [
    'plain http to a public name is refused under development',
    { given: 'http://as.example.com/a', policy: development, want: 'plain_http' },
  ],
  [
    'plain http to this deployment passes',
    { given: 'http://gateway.internal:8080/cb', policy: ownHttp, want: 'ok' },
  ],
  [
    'plain http to another port of it is refused',
    { given: 'http://gateway.internal:8081/cb', policy: ownHttp, want: 'plain_http' },
  ],
];

describe('checkOAuthEndpointUrl', () => {
  it.each(cases)('%s', (_name, { given, policy = production, want }) => {
    let refusal: unknown;
    try {
      const url = checkOAuthEndpointUrl(given, 'authorization', policy);
      expect(want).toBe('ok');
      expect(url.href).toBe(new URL(given as string).href);
      return;
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    const error = refusal as GatewayError;
    expect([error.code, error.detail?.why, error.field]).toEqual([
      'oauth_authorization_endpoint_rejected',
      want,
      'authorization_endpoint',
    ]);
    expect(error.status).toBe(422);
    // The value is never repeated (it may be a script, or a lookalike host).
    if (typeof given === 'string' && given.length > 12)
      expect(JSON.stringify(publicError(error))).not.toContain(given.slice(8, 40));
  });

  it.each([
    ['resource_metadata', 'resource_metadata'],
    ['issuer', 'authorization_servers'],
    ['token', 'token_endpoint'],
    ['registration', 'registration_endpoint'],
    ['revocation', 'revocation_endpoint'],
  ] as const)('names the %s kind in its code and field', (kind, field) => {
    const refuse = () => checkOAuthEndpointUrl('javascript:x', kind, production);
    expect(refuse).toThrow(
      expect.objectContaining({ code: `oauth_${kind}_endpoint_rejected`, field }),
    );
    expect(REASONS[`oauth_${kind}_endpoint_rejected`].status).toBe(422);
  });
});
