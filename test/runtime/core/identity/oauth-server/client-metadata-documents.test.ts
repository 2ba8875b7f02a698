/**
 * Clients that identify themselves with a Client ID Metadata Document URL:
 * the whole flow with one served on loopback (the development policy allows
 * loopback http), the document cached by its Cache-Control, documents that
 * lie about themselves refused on a page, and (with the production policy)
 * a document URL that resolves to a private address refused before any
 * connection is made.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientMetadataDocuments } from '../../../../../runtime/core/identity/oauth-server/client-metadata-documents.ts';
import { RedirectAllowlist } from '../../../../../runtime/core/identity/oauth-server/redirect-uris.ts';
import { createGuardedClient } from '../../../../../runtime/core/outbound/guarded-client.ts';
import { type OAuthGateway, startOAuthGateway } from '../../../../support/oauth/oauth-gateway.ts';
import { codeFor, exchange } from '../../../../support/oauth/raw-flow.ts';

let running: OAuthGateway;
let documents: Server;
let origin: string;
const fetched: string[] = [];
const REDIRECT = 'http://127.0.0.1:7799/callback';

beforeAll(async () => {
  running = await startOAuthGateway();
  documents = createServer((req, res) => {
    fetched.push(req.url ?? '');
    const id = `${origin}${req.url}`;
    const body =
      req.url === '/liar.json'
        ? { client_id: `${origin}/someone-else.json`, redirect_uris: [REDIRECT] }
        : req.url === '/secret.json'
          ? {
              client_id: id,
              redirect_uris: [REDIRECT],
              token_endpoint_auth_method: 'client_secret_basic',
            }
          : { client_id: id, client_name: 'Document Client', redirect_uris: [REDIRECT] };
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'max-age=600');
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => documents?.close(resolve));
  await running?.close();
});

describe('a Client ID Metadata Document client', () => {
  it('goes through the whole flow, its document fetched once and then cached', async () => {
    const client = { clientId: `${origin}/client.json`, redirectUri: REDIRECT };
    const first = await exchange(running.url, client, await codeFor(running.url, client));
    expect(first.status).toBe(200);
    const second = await exchange(running.url, client, await codeFor(running.url, client));
    expect(second.status).toBe(200);
    expect(fetched.filter((path) => path === '/client.json')).toHaveLength(1);
    const store = running.gateway.running.gateway.store;
    const workspace = await store.workspaces.byName('default');
    const consents = await store.oauth.consents.list(workspace!.id);
    expect(consents.map((c) => [c.clientId, c.clientName])).toEqual([
      [client.clientId, 'Document Client'],
    ]);
  });

  it.each([
    ['whose client_id is not its URL', '/liar.json', 'client_id is not the URL'],
    ['that is not a public client', '/secret.json', 'must be public'],
  ])('refuses a document %s, on a page', async (_name, path, text) => {
    const url = new URL(`${running.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: `${origin}${path}`,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    }).toString();
    const reply = await fetch(url, { redirect: 'manual' });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('location')).toBeNull();
    expect(await reply.text()).toContain(text);
  });
});

describe('with the production outbound policy', () => {
  const client = createGuardedClient({ allowPrivateNetworks: false });
  const resolver = new ClientMetadataDocuments({
    client,
    allowlist: new RedirectAllowlist([]),
    allowLoopbackHttp: false,
  });
  afterAll(() => client.close());

  it.each([
    ['a name that resolves to loopback', 'https://localhost:9/client.json'],
    ['a private address', 'https://10.1.2.3/client.json'],
    ['link-local metadata', 'https://169.254.169.254/latest/meta-data.json'],
  ])('refuses a document URL at %s, naming why', async (_name, url) => {
    await expect(resolver.resolve(url)).rejects.toMatchObject({
      error: 'invalid_client',
      message: expect.stringContaining('upstream_address_refused'),
    });
  });

  it.each([
    ['http', 'http://client.example/metadata.json', 'must be https'],
    ['a root path', 'https://client.example/', 'needs a path'],
    ['a fragment', 'https://client.example/c.json#x', 'needs a path and no fragment'],
  ])('refuses a document URL with %s before fetching anything', async (_name, url, text) => {
    await expect(resolver.resolve(url)).rejects.toMatchObject({
      error: 'invalid_client',
      message: expect.stringContaining(text),
    });
  });
});
