/**
 * The discovery documents and CORS, as a browser-based client meets them:
 * protected resource metadata at the path-aware well-known URLs (for `/mcp`
 * and each connection's `/mcp/c/<connection>`), authorization server metadata
 * at both well-known names with the fields the issue lists, and preflights
 * answered without a credential (they used to get 401).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';

const INSPECTOR = 'http://localhost:6274';
let running: OAuthGateway;

beforeAll(async () => {
  running = await startOAuthGateway({ environment: { PORTCULLIS_CORS_ORIGINS: INSPECTOR } });
});
afterAll(() => running?.close());

async function json(path: string, headers: Record<string, string> = {}) {
  const reply = await fetch(`${running.url}${path}`, { headers });
  return {
    status: reply.status,
    headers: reply.headers,
    body: (await reply.json()) as Record<string, unknown>,
  };
}

describe('protected resource metadata', () => {
  it.each([
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ['/.well-known/oauth-protected-resource', '/mcp'],
    ['/.well-known/oauth-protected-resource/mcp/c/unikraft', '/mcp/c/unikraft'],
  ])('%s describes %s', async (path, endpoint) => {
    const { status, body } = await json(path);
    expect(status).toBe(200);
    expect(body).toEqual({
      resource: `${running.url}${endpoint}`,
      authorization_servers: [running.url],
      scopes_supported: ['tools:read', 'tools:write', 'tools:destructive'],
      bearer_methods_supported: ['header'],
      resource_name: 'Portcullis',
      resource_documentation: `${running.url}/docs/mcp`,
    });
  });

  it('names documentation that exists: a page of the gateway, saying how to connect', async () => {
    const reply = await fetch(`${running.url}/docs/mcp`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await reply.text()).toContain(`${running.url}/mcp`);
  });

  it('is not found for a path that is no MCP endpoint', async () => {
    expect((await json('/.well-known/oauth-protected-resource/elsewhere')).status).toBe(404);
  });
});

describe('authorization server metadata', () => {
  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
    '%s names the issuer exactly and every endpoint',
    async (path) => {
      const { status, body } = await json(path);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        issuer: running.url,
        authorization_endpoint: `${running.url}/oauth/authorize`,
        token_endpoint: `${running.url}/oauth/token`,
        registration_endpoint: `${running.url}/oauth/register`,
        revocation_endpoint: `${running.url}/oauth/revoke`,
        jwks_uri: `${running.url}/oauth/jwks`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'private_key_jwt'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
        ],
        scopes_supported: ['tools:read', 'tools:write', 'tools:destructive'],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      });
    },
  );
});

describe('CORS', () => {
  async function preflight(path: string, origin: string) {
    return fetch(`${running.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
  }

  it.each(['/mcp', '/oauth/token', '/oauth/register', '/.well-known/oauth-protected-resource/mcp'])(
    'answers a preflight for %s without a credential',
    async (path) => {
      const reply = await preflight(path, INSPECTOR);
      expect(reply.status).toBe(204);
      expect(reply.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
      expect(reply.headers.get('access-control-allow-headers')).toBe(
        'authorization, content-type, mcp-protocol-version',
      );
    },
  );

  it('gives an origin it does not know no CORS headers', async () => {
    const reply = await preflight('/mcp', 'https://evil.example');
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('says the discovery documents vary by Origin to every request, one without an Origin too', async () => {
    // They are cacheable (public, max-age): a shared cache must not give a browser the copy made for none.
    const variants: Array<Record<string, string>> = [
      {},
      { origin: INSPECTOR },
      { origin: 'https://elsewhere.example' },
    ];
    for (const headers of variants) {
      const reply = await fetch(`${running.url}/.well-known/oauth-authorization-server`, {
        headers,
      });
      expect(reply.headers.get('vary')).toContain('Origin');
    }
  });

  it("exposes WWW-Authenticate and Mcp-Session-Id on /mcp's replies to an allowed origin", async () => {
    const reply = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        origin: INSPECTOR,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
    expect(reply.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    expect(reply.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer realm="portcullis", scope="tools:read", resource_metadata="${running.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('never makes the consent page a CORS resource', async () => {
    const reply = await preflight('/oauth/authorize', INSPECTOR);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });
});
