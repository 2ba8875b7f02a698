/**
 * Which client a sign-in uses (seed 000 "How sign-in gets a client",
 * "Client binding"), against a real loopback authorization server: the
 * deployment's client always wins, a stored client is reused only while
 * its binding holds, CIMD only for a public https document URL, DCR
 * registers a public web client, the operator's client last; a minted
 * client is registered again when its binding changes, an operator's is
 * not.
 */
import { describe, expect, it } from 'vitest';
import {
  buildClientMetadataDocument,
  type ClientMaterial,
  discover,
  obtainClient,
  type UpstreamOAuthDiscovery,
} from '../../../../../runtime/core/identity/oauth-client/upstream-oauth.ts';
import {
  bindingOf,
  CountingStore,
  challengeOf,
  engineContext,
  peerPerTest,
  REDIRECT_URI,
} from '../../../../support/upstream-oauth/engine-harness.ts';
import {
  asMetadata,
  type OAuthPeer,
  publicWebClient,
  type Route,
} from '../../../../support/upstream-oauth/oauth-peer.ts';

const peers = peerPerTest();
let peer: OAuthPeer | undefined;

const DOCUMENT_URL = 'https://gateway.example.com/connect/oauth/client-metadata.json';

async function discovered(routes: Record<string, Route> = {}): Promise<UpstreamOAuthDiscovery> {
  peer = await peers.start(routes);
  return discover(peer.mcpUrl, await challengeOf(peer), engineContext());
}

function obtain(
  discovery: UpstreamOAuthDiscovery,
  store: CountingStore<ClientMaterial>,
  more: Record<string, unknown> = {},
) {
  return obtainClient(discovery, bindingOf(discovery), {
    context: engineContext(),
    store,
    connection: 'acme-files',
    mayRegister: true,
    ...more,
  });
}

const cimd: Record<string, Route> = {
  'GET /.well-known/oauth-authorization-server/as': (_request, base) => ({
    json: { ...asMetadata(base), client_id_metadata_document_supported: true },
  }),
};

describe('obtainClient', () => {
  it("uses the connection's preconfigured client over the unsuffixed one, and registers nothing", async () => {
    const discovery = await discovered();
    const client = await obtain(discovery, new CountingStore(), {
      env: {
        PORTCULLIS_TOOL_OAUTH_CLIENT_ID: 'deployment-wide',
        PORTCULLIS_TOOL_OAUTH_ACME_FILES_CLIENT_ID: 'for-acme-files',
        PORTCULLIS_TOOL_OAUTH_ACME_FILES_CLIENT_SECRET: 's3cret',
      },
      clientMetadataUrl: DOCUMENT_URL,
    });
    expect(client).toMatchObject({
      clientId: 'for-acme-files',
      clientSecret: 's3cret',
      tokenEndpointAuthMethod: 'client_secret_basic',
      source: 'preconfigured',
    });
    expect(peer!.hits('/as/register')).toHaveLength(0);
  });

  it('falls back to the unsuffixed preconfigured client', async () => {
    const discovery = await discovered();
    const client = await obtain(discovery, new CountingStore(), {
      env: { PORTCULLIS_TOOL_OAUTH_CLIENT_ID: 'deployment-wide' },
    });
    expect(client).toMatchObject({
      clientId: 'deployment-wide',
      tokenEndpointAuthMethod: 'none',
      source: 'preconfigured',
    });
  });

  it('presents the client metadata document URL when the server supports CIMD', async () => {
    const discovery = await discovered(cimd);
    const client = await obtain(discovery, new CountingStore(), {
      clientMetadataUrl: DOCUMENT_URL,
    });
    expect(client).toMatchObject({
      clientId: DOCUMENT_URL,
      tokenEndpointAuthMethod: 'none',
      source: 'cimd',
    });
    expect(peer!.hits('/as/register')).toHaveLength(0);
  });

  it.each([
    'http://gateway.example.com/connect/oauth/client-metadata.json',
    'https://localhost/connect/oauth/client-metadata.json',
    'https://10.1.2.3/connect/oauth/client-metadata.json',
  ])('falls through to DCR when the document URL %s is not public https', async (url) => {
    const discovery = await discovered(cimd);
    const client = await obtain(discovery, new CountingStore(), { clientMetadataUrl: url });
    expect(client.source).toBe('dcr');
  });

  it('registers a public web client with the code and refresh grants', async () => {
    const discovery = await discovered();
    const store = new CountingStore<ClientMaterial>();
    const client = await obtain(discovery, store);
    expect(client).toMatchObject({
      clientId: 'registered-client',
      tokenEndpointAuthMethod: 'none',
      source: 'dcr',
    });
    expect(client.binding).toEqual(bindingOf(discovery));
    expect(store.value).toEqual(client);
    expect(JSON.parse(peer!.hits('/as/register')[0]!.body)).toEqual(publicWebClient(REDIRECT_URI));
  });

  it('reuses a stored client while its binding holds, and registers again when the issuer changes', async () => {
    const discovery = await discovered();
    const store = new CountingStore<ClientMaterial>();
    const first = await obtain(discovery, store);
    expect(await obtain(discovery, store)).toEqual(first);
    expect(peer!.hits('/as/register')).toHaveLength(1);
    const moved = { ...discovery, issuer: `${peer!.base}/as2` };
    const again = await obtain(moved, store);
    expect(again.binding.issuer).toBe(`${peer!.base}/as2`);
    expect(peer!.hits('/as/register')).toHaveLength(2);
  });

  it('never reuses a client across workspaces', async () => {
    const discovery = await discovered();
    const store = new CountingStore<ClientMaterial>();
    await obtain(discovery, store);
    await obtainClient(discovery, bindingOf(discovery, 'ws-2'), {
      context: engineContext(),
      store,
      connection: 'acme-files',
      mayRegister: true,
    });
    expect(peer!.hits('/as/register')).toHaveLength(2);
  });

  it("uses the operator's client where the server has neither CIMD nor DCR, and asks for it again when the binding changes", async () => {
    const discovery = await discovered({
      'GET /.well-known/oauth-authorization-server/as': (_request, base) => ({
        json: {
          ...asMetadata(base),
          registration_endpoint: undefined,
          token_endpoint_auth_methods_supported: ['client_secret_post'],
        },
      }),
    });
    const store = new CountingStore<ClientMaterial>();
    const required = await obtain(discovery, store).catch((e) => e);
    expect(required).toMatchObject({ code: 'oauth_client_required', field: 'client_id' });
    const client = await obtain(discovery, store, {
      operatorClient: { clientId: 'mine', clientSecret: 'pw' },
    });
    expect(client).toMatchObject({
      clientId: 'mine',
      tokenEndpointAuthMethod: 'client_secret_post',
      source: 'operator',
    });
    expect(await obtain(discovery, store)).toEqual(client);
    const moved = { ...discovery, issuer: `${peer!.base}/elsewhere` };
    const rebind = await obtain(moved, store).catch((e) => e);
    expect(rebind).toMatchObject({
      code: 'oauth_client_rebind_required',
      field: 'client_id',
      detail: { changed: ['issuer'] },
    });
    expect(JSON.stringify(rebind)).not.toContain('pw');
  });

  it('does not register unless the operator is connecting', async () => {
    const discovery = await discovered();
    const store = new CountingStore<ClientMaterial>();
    const error = await obtain(discovery, store, { mayRegister: false }).catch((e) => e);
    expect(error).toMatchObject({ code: 'oauth_sign_in_required' });
    expect(peer!.hits('/as/register')).toHaveLength(0);
    expect(store.saves).toBe(0);
  });
});

describe('buildClientMetadataDocument', () => {
  it('holds only the callback and the grant, response and auth methods', () => {
    expect(
      buildClientMetadataDocument(
        DOCUMENT_URL,
        'https://gateway.example.com/connect/oauth/callback',
      ),
    ).toEqual(publicWebClient(REDIRECT_URI, DOCUMENT_URL));
  });
});
