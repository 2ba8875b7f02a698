/**
 * Portcullis's upstream OAuth engine driven the way the conformance suite's
 * client scenarios expect of an MCP client: on a 401 discover, obtain a
 * client, sign in (or refresh), retry; on a 403 `insufficient_scope` sign in
 * again with the union of the scopes, at most a few times per request.
 *
 * Nobody is at a browser: the suite's authorization server redirects
 * straight back with a code, so the authorization URL is fetched through the
 * guarded client, and its redirect is delivered to a loopback callback
 * server exactly as a browser would deliver it. Client material and tokens
 * live in memory (`MemoryStore`); the product keeps them in the vault.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayError } from '../../runtime/core/base/errors.ts';
import {
  type ClientMaterial,
  type ClientStore,
  discover,
  finishSignIn,
  obtainClient,
  parseBearerChallenge,
  refreshTokens,
  startSignIn,
  stepUpScopes,
  type TokenSet,
  type UpstreamOAuthContext,
  type UpstreamOAuthDiscovery,
} from '../../runtime/core/identity/oauth-client/upstream-oauth.ts';
import type { UpstreamTarget } from '../../runtime/core/mcp/client/upstream-target.ts';
import type { GuardedClient } from '../../runtime/core/outbound/guarded-client.ts';
import { Redactor } from '../../runtime/core/outbound/redaction.ts';

/** A `ClientStore` or `TokenStore` in memory, for one run. */
export class MemoryStore<T> {
  #value: T | undefined;
  async load(): Promise<T | undefined> {
    return this.#value;
  }
  async save(value: T): Promise<void> {
    this.#value = value;
  }
  async forget(): Promise<void> {
    this.#value = undefined;
  }
}

export interface OAuthSignInOptions {
  http: GuardedClient;
  mcpUrl: URL;
  /** The deployment's `PORTCULLIS_TOOL_OAUTH_*` (a preregistered client). */
  env: Record<string, string | undefined>;
  /** The Client ID Metadata Document URL presented when the server supports CIMD. */
  clientMetadataUrl?: string;
  /** Told about each step (never a token or a secret). */
  log?: (line: string) => void;
}

/** The most times one request is answered 401/403 before it fails. */
const MAX_AUTH_ROUNDS = 3;

export class OAuthSignIn {
  readonly #options: OAuthSignInOptions;
  readonly #context: UpstreamOAuthContext;
  readonly #clients: ClientStore = new MemoryStore<ClientMaterial>();
  #tokens: TokenSet | undefined;
  #discovery: UpstreamOAuthDiscovery | undefined;
  #client: ClientMaterial | undefined;
  #callback: Promise<Callback> | undefined;

  constructor(options: OAuthSignInOptions) {
    this.#options = options;
    this.#context = { http: options.http, policy: { allowPrivateNetworks: true } };
  }

  /** Where the MCP requests go, with the current access token. */
  target(): UpstreamTarget {
    const token = this.#tokens?.accessToken;
    return {
      url: this.#options.mcpUrl,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      redactor: new Redactor(token ? [token] : []),
    };
  }

  /** Runs `send` with the current token, signing in again on 401 and stepping up on 403. */
  async call<T>(what: string, send: (target: UpstreamTarget) => Promise<T>): Promise<T> {
    let refreshed = false;
    for (let round = 0; ; round++) {
      try {
        return await send(this.target());
      } catch (error) {
        const status = error instanceof GatewayError ? error.detail?.status : undefined;
        if ((status !== 401 && status !== 403) || round >= MAX_AUTH_ROUNDS) throw error;
        const challenge = error instanceof GatewayError ? error.detail?.challenge : undefined;
        const header = typeof challenge === 'string' ? challenge : undefined;
        this.#log(`${what}: HTTP ${String(status)}`);
        if (status === 403) await this.#stepUp(header, error);
        else refreshed = await this.#reauthorize(header, refreshed);
      }
    }
  }

  async close(): Promise<void> {
    const callback = await this.#callback;
    await callback?.close();
  }

  /** A 401: the same authorization server and a refresh token refresh once; otherwise a new sign-in. */
  async #reauthorize(header: string | undefined, refreshedBefore: boolean): Promise<boolean> {
    const discovery = await discover(this.#options.mcpUrl, header, this.#context);
    const sameServer = this.#discovery?.issuer === discovery.issuer;
    this.#discovery = discovery;
    if (sameServer && this.#tokens?.refreshToken && this.#client && !refreshedBefore) {
      this.#log('refreshing the access token');
      this.#tokens = await refreshTokens(
        {
          metadata: discovery.metadata,
          client: this.#client,
          resource: discovery.resource,
          sendResource: true,
        },
        this.#tokens,
        this.#context,
      );
      return true;
    }
    await this.#signIn(discovery, discovery.scopes);
    return false;
  }

  /** A 403 `insufficient_scope`: a new sign-in with the union of the scopes, if that is wider. */
  async #stepUp(header: string | undefined, error: unknown): Promise<void> {
    const challenge = parseBearerChallenge(header);
    const scopes = challenge && stepUpScopes(this.#tokens?.scopes ?? [], challenge);
    if (!scopes)
      throw new GatewayError(
        'oauth_scope_insufficient',
        'the server asks for scopes the sign-in already asked for; not signing in again',
        { cause: error },
      );
    const discovery =
      this.#discovery ?? (await discover(this.#options.mcpUrl, header, this.#context));
    this.#discovery = discovery;
    this.#log(`stepping up to ${scopes.length} scopes`);
    await this.#signIn(discovery, scopes);
  }

  async #signIn(discovery: UpstreamOAuthDiscovery, scopes: readonly string[]): Promise<void> {
    const callback = await this.#callbackServer();
    const client = await obtainClient(
      discovery,
      {
        issuer: discovery.issuer,
        resource: discovery.resource,
        redirectUri: callback.redirectUri,
        workspaceId: 'conformance',
      },
      {
        context: this.#context,
        store: this.#clients,
        connection: 'conformance',
        env: this.#options.env,
        ...(this.#options.clientMetadataUrl
          ? { clientMetadataUrl: this.#options.clientMetadataUrl }
          : {}),
        mayRegister: true,
        clientName: 'Portcullis conformance client',
      },
    );
    this.#client = client;
    this.#log(`signing in with a ${client.source} client`);
    const { authorizationUrl, pending } = await startSignIn(
      discovery,
      client,
      { redirectUri: callback.redirectUri, scopes },
      this.#context,
    );
    const query = await this.#follow(authorizationUrl, callback);
    this.#tokens = await finishSignIn(pending, query, client, this.#context);
    this.#log('signed in');
  }

  /** What a browser does: load the authorization page, follow its redirect to the callback. */
  async #follow(authorizationUrl: URL, callback: Callback): Promise<URLSearchParams> {
    const reply = await this.#options.http.send({
      method: 'GET',
      url: authorizationUrl,
      headers: { accept: 'text/html' },
    });
    const location = reply.headers.location;
    if (reply.status < 300 || reply.status > 399 || location === undefined)
      throw new Error(`the authorization page answered HTTP ${reply.status} without a redirect`);
    const next = new URL(location, authorizationUrl);
    if (next.origin !== new URL(callback.redirectUri).origin)
      throw new Error(
        `the authorization page redirected elsewhere than the callback (${next.host})`,
      );
    const received = callback.next();
    await this.#options.http.send({ method: 'GET', url: next, headers: {} });
    return received;
  }

  #callbackServer(): Promise<Callback> {
    this.#callback ??= startCallback();
    return this.#callback;
  }

  #log(line: string): void {
    this.#options.log?.(line);
  }
}

interface Callback {
  redirectUri: string;
  /** The query of the next request to the callback. */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** The loopback callback a browser would be sent to. */
async function startCallback(): Promise<Callback> {
  let waiting: ((query: URLSearchParams) => void) | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    waiting?.(url.searchParams);
    waiting = undefined;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in; you may close this page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    next: () =>
      new Promise((resolve) => {
        waiting = resolve;
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
