/**
 * A remote MCP server and its authorization server on one loopback port,
 * for the upstream OAuth engine's tests: the hostile answers (a
 * `javascript:` endpoint, another issuer, a redirect to a private address)
 * no real authorization server would give. Each route answers from the
 * test's table; every request is recorded (method, path, headers, body), so
 * a test can show what was never sent.
 *
 * The defaults are a well-behaved server: `/mcp` answers 401 with a
 * `resource_metadata` hint, the protected resource metadata names
 * `<base>/mcp` and the issuer `<base>/as`, whose RFC 8414 metadata is at
 * `/.well-known/oauth-authorization-server/as`, with DCR, a token endpoint
 * issuing `access-1`/`refresh-1` and a revocation endpoint.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  form: URLSearchParams;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
}

export type Route = (request: Recorded, base: string) => Reply;

export interface OAuthPeer {
  base: string;
  mcpUrl: URL;
  issuer: string;
  requests: Recorded[];
  /** The recorded requests to a path. */
  hits(path: string): Recorded[];
  close(): Promise<void>;
}

export function defaultRoutes(): Record<string, Route> {
  return {
    'POST /mcp': (_request, base) => ({
      status: 401,
      headers: {
        'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="files:read"`,
      },
      json: { error: 'invalid_token' },
    }),
    'GET /.well-known/oauth-protected-resource/mcp': (_request, base) => ({
      json: { resource: `${base}/mcp`, authorization_servers: [`${base}/as`] },
    }),
    'GET /.well-known/oauth-authorization-server/as': (_request, base) => ({
      json: asMetadata(base),
    }),
    'POST /as/register': (request) => ({
      status: 201,
      json: { client_id: 'registered-client', ...JSON.parse(request.body) },
    }),
    'POST /as/token': () => ({
      json: {
        access_token: 'access-1',
        refresh_token: 'refresh-1',
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'files:read',
      },
    }),
    'POST /as/revoke': () => ({ status: 200 }),
  };
}

export function asMetadata(base: string): Record<string, unknown> {
  return {
    issuer: `${base}/as`,
    authorization_endpoint: `${base}/as/authorize`,
    token_endpoint: `${base}/as/token`,
    registration_endpoint: `${base}/as/register`,
    revocation_endpoint: `${base}/as/revoke`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
    authorization_response_iss_parameter_supported: true,
  };
}

export async function startOAuthPeer(overrides: Record<string, Route> = {}): Promise<OAuthPeer> {
  const routes = { ...defaultRoutes(), ...overrides };
  const requests: Recorded[] = [];
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', base);
      const body = Buffer.concat(chunks).toString('utf8');
      const recorded: Recorded = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        form: new URLSearchParams(body),
      };
      requests.push(recorded);
      const route = routes[`${recorded.method} ${recorded.path}`];
      const reply = route ? route(recorded, base) : { status: 404, json: { error: 'not_found' } };
      const headers: Record<string, string> = { ...reply.headers };
      if (reply.json !== undefined) headers['content-type'] = 'application/json';
      res.writeHead(reply.status ?? 200, headers);
      res.end(reply.json === undefined ? undefined : JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    mcpUrl: new URL(`${base}/mcp`),
    issuer: `${base}/as`,
    requests,
    hits: (path) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The client metadata Portcullis sends in DCR and publishes as its CIMD document. */
export function publicWebClient(redirectUri: string, clientId?: string): Record<string, unknown> {
  return {
    ...(clientId === undefined ? {} : { client_id: clientId }),
    client_name: 'Portcullis',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}
