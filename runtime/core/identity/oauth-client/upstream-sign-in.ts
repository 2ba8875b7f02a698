/**
 * Signing in to a remote MCP server, as the product does it around the
 * engine (`runtime/core/identity/oauth-client/`): a sign-in for a connection's
 * shared credential (an operator) or an agent's personal one (its person)
 * gets a client (only an explicit operator sign-in may register one), a
 * pending sign-in in the store (its `state` kept only as a hash, single-use,
 * short-lived, bound to who started it, the connection, and the browser
 * that opens the link), and a link to Portcullis's own page, which names
 * the host the person is sent to before sending them there. The callback
 * takes the sign-in once, and only in that browser, and stores the tokens.
 */
import { createHash, randomBytes } from 'node:crypto';
import { GatewayError } from '../../base/errors.ts';
import type { RemoteEndpoint, RemoteOAuth } from '../../model/remote.ts';
import type { StoredSignIn } from '../../model/sign-in.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { Store } from '../../ports/store.ts';
import type { CredentialVault } from '../../vault/credential-vault.ts';
import { refuseOverLimits, reusableSignIn } from './sign-in-limits.ts';
import { signInPlace, vaultClientStore, vaultTokenStore } from './sign-in-secrets.ts';
import {
  CALLBACK_PATH,
  type ClientBinding,
  type ClientMaterial,
  clientMetadataUrl,
  finishSignIn,
  obtainClient,
  type PendingSignIn,
  type SuppliedClient,
  startSignIn,
  type TokenSet,
  type UpstreamOAuthContext,
  type UpstreamOAuthDiscovery,
  urlUnder,
} from './upstream-oauth.ts';

/** Where the link a person opens points: Portcullis's page before the authorization server. */
export const SIGN_IN_PAGE_PATH = '/connect/oauth/sign-in';
/** The cookie that binds a sign-in to the browser that opened its link. */
export const SIGN_IN_COOKIE = 'portcullis_sign_in';
const SIGN_IN_TTL_MS = 10 * 60_000;

export interface UpstreamSignInOptions {
  store: Store;
  vault: CredentialVault;
  state: SharedState;
  http: GuardedClient;
  allowPrivateNetworks: boolean;
  /** This deployment's address: `PORTCULLIS_PUBLIC_URL`, else the one it listens on. */
  baseUrl: string;
  /** Set when `PORTCULLIS_PUBLIC_URL` is: its origin may be plain http, and CIMD needs it public https. */
  publicUrl?: URL;
  /** Where `PORTCULLIS_TOOL_OAUTH_*` are read from. */
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

export interface SignInLink {
  /** Portcullis's page that names the host, then sends the person on. */
  link: string;
  /** The authorization server's host, named wherever the link is shown. */
  host: string;
  expiresAt: string;
}

export interface StartOptions {
  workspaceId: string;
  connection: { id: string; name: string };
  endpoint: RemoteEndpoint;
  /** null: the connection's shared credential. */
  agentId: string | null;
  actor: string;
  /** Only an explicit operator sign-in may register a client (CIMD, DCR). */
  mayRegister: boolean;
  scopes?: readonly string[];
  operatorClient?: SuppliedClient;
  /**
   * Answer the link of an unopened sign-in the same actor started for this
   * credential, while it lives, instead of minting one (a call that needs
   * the agent's person); an operator's sign-in always starts afresh.
   */
  reuseUnopened?: boolean;
}

/** A sign-in the callback took: who it was for, and the tokens it obtained. */
export interface FinishedSignIn {
  signIn: StoredSignIn;
  tokens: TokenSet;
}

export function stateHash(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

export class UpstreamSignIn {
  readonly options: UpstreamSignInOptions;
  readonly context: UpstreamOAuthContext;
  /** This deployment's callback, the one every client is bound to. */
  readonly redirectUri: string;

  constructor(options: UpstreamSignInOptions) {
    this.options = options;
    this.redirectUri = urlUnder(new URL(options.baseUrl), CALLBACK_PATH);
    this.context = {
      http: options.http,
      policy: {
        allowPrivateNetworks: options.allowPrivateNetworks,
        ...(options.publicUrl ? { ownOrigin: options.publicUrl.origin } : {}),
      },
      now: options.now,
    };
  }

  /** The Client ID Metadata Document's URL: only for a public https deployment (`client-metadata.ts`). */
  get clientMetadataUrl(): string | undefined {
    return clientMetadataUrl(this.options.publicUrl);
  }

  clients(workspaceId: string, connectionId: string) {
    return vaultClientStore(this.options.store, this.options.vault, workspaceId, connectionId);
  }

  tokens(workspaceId: string, connectionId: string, agentId: string | null) {
    return vaultTokenStore(
      this.options.store,
      this.options.vault,
      { workspaceId, connectionId, agentId },
      this.options.now,
    );
  }

  binding(workspaceId: string, oauth: RemoteOAuth): ClientBinding {
    return {
      issuer: oauth.issuer,
      resource: oauth.resource,
      redirectUri: this.redirectUri,
      workspaceId,
    };
  }

  /** Gets a client, builds the authorization request and keeps the pending sign-in. */
  async start(options: StartOptions): Promise<SignInLink> {
    const { endpoint, workspaceId } = options;
    const oauth = endpoint.oauth;
    if (!oauth)
      throw new GatewayError(
        'invalid_input',
        `connection: ${options.connection.name} has no sign-in`,
        {
          field: 'connection',
        },
      );
    const signIns = this.options.store.upstreamOAuth.signIns;
    const credential = { connectionId: endpoint.connectionId, agentId: options.agentId };
    const begun = this.options.now();
    await signIns.prune(begun.toISOString());
    const live = await signIns.liveIn(workspaceId, begun.toISOString());
    const again = options.reuseUnopened
      ? reusableSignIn(live, credential, options.actor, begun)
      : undefined;
    if (again) return this.#linkOf(again);
    refuseOverLimits(live, credential, options.connection.name);
    const discovery = discoveryOf(oauth);
    const client = await obtainClient(discovery, this.binding(workspaceId, oauth), {
      context: this.context,
      store: this.clients(workspaceId, endpoint.connectionId),
      connection: options.connection.name,
      env: this.options.env,
      mayRegister: options.mayRegister,
      ...(this.clientMetadataUrl ? { clientMetadataUrl: this.clientMetadataUrl } : {}),
      ...(options.operatorClient ? { operatorClient: options.operatorClient } : {}),
    });
    const started = await startSignIn(
      discovery,
      client,
      {
        redirectUri: this.redirectUri,
        sendResource: !oauth.omitResource,
        ttlMs: SIGN_IN_TTL_MS,
        ...(options.scopes ? { scopes: options.scopes } : {}),
      },
      this.context,
    );
    const hash = stateHash(started.pending.state);
    const now = this.options.now();
    const expiresAt = new Date(now.getTime() + SIGN_IN_TTL_MS).toISOString();
    await this.options.store.transaction(async (tx) => {
      const { sealed, keyId } = await this.options.vault.sealUnderCurrent(
        tx,
        signInPlace(workspaceId, endpoint.connectionId, hash),
        JSON.stringify({
          pending: started.pending,
          authorizationUrl: started.authorizationUrl.href,
        }),
      );
      await tx.upstreamOAuth.signIns.create({
        stateHash: hash,
        workspaceId,
        connectionId: endpoint.connectionId,
        agentId: options.agentId,
        actor: options.actor,
        browserHash: null,
        sealed,
        keyId,
        host: started.host,
        expiresAt,
        createdAt: now.toISOString(),
      });
    });
    return this.#link(started.pending.state, started.host, expiresAt);
  }

  /** The link of a pending sign-in, shown again: its state is kept sealed in the pending sign-in. */
  #linkOf(signIn: StoredSignIn): SignInLink {
    const { pending } = this.#openPending(signIn);
    return this.#link(pending.state, signIn.host, signIn.expiresAt);
  }

  #link(state: string, host: string, expiresAt: string): SignInLink {
    const link = new URL(urlUnder(new URL(this.options.baseUrl), SIGN_IN_PAGE_PATH));
    link.searchParams.set('state', state);
    return { link: link.href, host, expiresAt };
  }

  /** The live sign-in a link names, before anything is bound (what its page says it connects). */
  pending(state: string): Promise<StoredSignIn> {
    return this.#live(state);
  }

  /**
   * The sign-in a link names, bound to this browser: the first browser to
   * open it gets the cookie (`setCookie`); any other is refused.
   */
  async openLink(
    state: string,
    cookie: string | undefined,
  ): Promise<{ signIn: StoredSignIn; authorizationUrl: string; setCookie?: string }> {
    const signIn = await this.#live(state);
    let setCookie: string | undefined;
    if (signIn.browserHash === null) {
      const nonce = randomBytes(24).toString('base64url');
      if (
        !(await this.options.store.upstreamOAuth.signIns.bindBrowser(
          signIn.stateHash,
          stateHash(nonce),
        ))
      )
        throw openedElsewhere();
      setCookie = nonce;
    } else if (cookie === undefined || stateHash(cookie) !== signIn.browserHash) {
      throw openedElsewhere();
    }
    const { authorizationUrl } = this.#openPending(signIn);
    return { signIn, authorizationUrl, ...(setCookie ? { setCookie } : {}) };
  }

  /** The callback: the sign-in taken once, in its own browser, its code exchanged, its tokens stored. */
  async finish(query: URLSearchParams, cookie: string | undefined): Promise<FinishedSignIn> {
    const state = query.get('state');
    if (state === null || state === '') throw stateInvalid('the reply carries no state');
    const signIn = await this.#live(state);
    if (
      signIn.browserHash === null ||
      cookie === undefined ||
      stateHash(cookie) !== signIn.browserHash
    )
      throw stateInvalid('this sign-in was started in another browser');
    const taken = await this.options.store.upstreamOAuth.signIns.take(signIn.stateHash);
    if (!taken) throw stateInvalid('this sign-in was finished already');
    const { pending } = this.#openPending(taken);
    const client = await this.clients(taken.workspaceId, taken.connectionId).load();
    if (!client || client.clientId !== pending.clientId)
      throw new GatewayError(
        'oauth_client_required',
        'the client this sign-in started with is gone; sign in again',
        {
          field: 'client_id',
        },
      );
    const tokens = await finishSignIn(pending, query, client as ClientMaterial, this.context);
    await this.tokens(taken.workspaceId, taken.connectionId, taken.agentId).save(tokens);
    return { signIn: taken, tokens };
  }

  async #live(state: string): Promise<StoredSignIn> {
    const signIn = await this.options.store.upstreamOAuth.signIns.byState(stateHash(state));
    if (!signIn) throw stateInvalid('this sign-in is unknown or was finished already');
    if (signIn.expiresAt <= this.options.now().toISOString())
      throw stateInvalid('this sign-in expired; start it again');
    return signIn;
  }

  #openPending(signIn: StoredSignIn): { pending: PendingSignIn; authorizationUrl: string } {
    return JSON.parse(
      this.options.vault.openAt(
        signInPlace(signIn.workspaceId, signIn.connectionId, signIn.stateHash),
        signIn.sealed,
      ),
    ) as { pending: PendingSignIn; authorizationUrl: string };
  }
}

export function discoveryOf(oauth: RemoteOAuth): UpstreamOAuthDiscovery {
  return {
    authKind: 'oauth',
    resource: oauth.resource,
    resourceMetadataUrl: oauth.resourceMetadataUrl,
    issuer: oauth.issuer,
    metadata: oauth.metadata,
    scopes: oauth.scopes,
  };
}

/** A link another browser opened first: `detail.openedElsewhere` lets its page say what to do. */
function openedElsewhere(): GatewayError {
  return new GatewayError(
    'oauth_state_invalid',
    'this sign-in link was opened in another browser',
    {
      field: 'state',
      detail: { openedElsewhere: true },
    },
  );
}

/** Whether the link was refused because another browser opened it first. */
export function isOpenedElsewhere(error: unknown): boolean {
  return error instanceof GatewayError && error.detail?.openedElsewhere === true;
}

function stateInvalid(message: string): GatewayError {
  return new GatewayError('oauth_state_invalid', message, { field: 'state' });
}
