/**
 * The upstream OAuth engine as the product drives it, for tests: a context
 * over a real guarded client, in-memory stores, the 401 challenge fetched
 * from the peer, and a sign-in whose authorization step the test answers
 * (the code, `state`, `iss` the authorization server would redirect with).
 */

import { afterEach } from 'vitest';
import {
  type ClientBinding,
  type ClientMaterial,
  discover,
  type ObtainClientOptions,
  obtainClient,
  type UpstreamOAuthContext,
  type UpstreamOAuthDiscovery,
} from '../../../runtime/core/identity/oauth-client/upstream-oauth.ts';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../../runtime/core/outbound/guarded-client.ts';
import { type OAuthPeer, type Route, startOAuthPeer } from './oauth-peer.ts';

export const REDIRECT_URI = 'https://gateway.example.com/connect/oauth/callback';

/** A `ClientStore` or `TokenStore` in memory that counts its writes. */
export class CountingStore<T> {
  value: T | undefined;
  saves = 0;
  async load(): Promise<T | undefined> {
    return this.value;
  }
  async save(value: T): Promise<void> {
    this.value = value;
    this.saves++;
  }
  async forget(): Promise<void> {
    this.value = undefined;
  }
}

const clients: GuardedClient[] = [];

export function engineContext(allowPrivateNetworks = true): UpstreamOAuthContext {
  const http = createGuardedClient({ allowPrivateNetworks, reuseConnections: false });
  clients.push(http);
  return { http, policy: { allowPrivateNetworks } };
}

export async function closeEngineContexts(): Promise<void> {
  for (const http of clients.splice(0)) await http.close();
}

/** What the MCP endpoint answers without a token: its `WWW-Authenticate`. */
export async function challengeOf(peer: OAuthPeer): Promise<string | undefined> {
  const response = await fetch(peer.mcpUrl, { method: 'POST', body: '{}' });
  await response.arrayBuffer();
  return response.headers.get('www-authenticate') ?? undefined;
}

export function bindingOf(discovery: UpstreamOAuthDiscovery, workspaceId = 'ws-1'): ClientBinding {
  return {
    issuer: discovery.issuer,
    resource: discovery.resource,
    redirectUri: REDIRECT_URI,
    workspaceId,
  };
}

/** Discovery, then a client (registration allowed), as an operator's connect does. */
export async function discoverAndObtain(
  peer: OAuthPeer,
  context: UpstreamOAuthContext,
  options: Partial<ObtainClientOptions> = {},
): Promise<{
  discovery: UpstreamOAuthDiscovery;
  client: ClientMaterial;
  store: CountingStore<ClientMaterial>;
}> {
  const discovery = await discover(peer.mcpUrl, await challengeOf(peer), context);
  const store =
    (options.store as CountingStore<ClientMaterial>) ?? new CountingStore<ClientMaterial>();
  const client = await obtainClient(discovery, bindingOf(discovery), {
    context,
    store,
    connection: 'files',
    mayRegister: true,
    ...options,
  });
  return { discovery, client, store };
}

/** The callback query the authorization server would redirect with. */
export function callbackQuery(fields: Record<string, string | undefined>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    if (value !== undefined) query.set(name, value);
  return query;
}

/** A peer per test, closed after it with the engine's guarded clients: `start` in the test, `current` after. */
export function peerPerTest(): {
  start(routes?: Record<string, Route>): Promise<OAuthPeer>;
  readonly current: OAuthPeer;
} {
  let peer: OAuthPeer | undefined;
  afterEach(async () => {
    await peer?.close();
    peer = undefined;
    await closeEngineContexts();
  });
  return {
    async start(routes = {}) {
      peer = await startOAuthPeer(routes);
      return peer;
    },
    get current() {
      if (!peer) throw new Error('no peer started in this test');
      return peer;
    },
  };
}
