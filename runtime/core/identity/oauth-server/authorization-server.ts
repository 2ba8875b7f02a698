/**
 * The gateway's own OAuth 2.1 authorization server, framework-free: every
 * endpoint takes what the HTTP adapter read and answers an `OAuthReply`.
 * It also makes the credential strategy `/mcp` accepts its access tokens
 * with, and says what a 401's challenge names.
 */
import type { ActingFor, IdJagRequest } from '../../model/delegation.ts';
import type { Member, StepUpForm } from '../../model/oauth.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { BucketRule } from '../../ports/shared-state/token-bucket.ts';
import type { Store } from '../../ports/store.ts';
import { AccessTokens } from '../principals/access-tokens.ts';
import { DEFAULT_SCOPE, SCOPES_SUPPORTED } from '../principals/scopes.ts';
import { authorize, type ConsentForm, decide, reviewAfterIdpSignIn } from './authorize-endpoint.ts';
import { ClientDirectory } from './client-directory.ts';
import { ClientMetadataDocuments } from './client-metadata-documents.ts';
import { documentationPage } from './consent-page.ts';
import { requestIdJag } from './id-jag-request.ts';
import { IdpDirectory } from './idp-directory.ts';
import {
  finishIdpSignIn,
  type IdpOffers,
  type IdpPurpose,
  type IdpSignedIn,
  idpOffers,
  startIdpSignIn,
} from './idp-sign-in.ts';
import { type IdpSync, syncIdpMember } from './idp-sync.ts';
import { JtiLedger } from './jti-ledger.ts';
import {
  actOnMemberConsents,
  type MemberConsentsForm,
  showMemberConsents,
} from './member-consents.ts';
import { type MemberSignIns, memberSignIns } from './member-sign-ins.ts';
import {
  authorizationServerMetadata,
  CONNECTION_MCP_PREFIX,
  MCP_PATH,
  protectedResourceMetadata,
  resourceMetadataUrl,
  resourceOf,
} from './metadata.ts';
import type { OAuthContext } from './oauth-context.ts';
import { documentReply, jsonReply, type OAuthReply } from './oauth-reply.ts';
import { RedirectAllowlist } from './redirect-uris.ts';
import { register } from './registration-endpoint.ts';
import { RemoteKeySets } from './remote-key-sets.ts';
import { endpointPathOf, Resources } from './resources.ts';
import { revoke } from './revocation-endpoint.ts';
import { type SecretVault, SigningKeys } from './signing-keys.ts';
import { signSubjectToken } from './subject-token.ts';
import { type TokenForm, token } from './token-endpoint.ts';

export interface AuthorizationServerOptions {
  /** `PORTCULLIS_PUBLIC_URL`, or the address the server listens on. */
  issuer: URL | string;
  store: Store;
  state: SharedState;
  /** Seals and opens the signing keys' private halves. */
  vault: SecretVault;
  /** Fetches Client ID Metadata Documents (its SSRF rules apply). */
  outbound: GuardedClient;
  /** `PORTCULLIS_OAUTH_REDIRECT_URIS`: patterns every redirect URI must match (none: any valid one). */
  redirectAllowlist?: readonly string[];
  /** `PORTCULLIS_OAUTH_SIGNING_KEY_PEM`: a private key instead of the store's. */
  signingKeyPem?: string | undefined;
  /**
   * `PORTCULLIS_OAUTH_DEFAULT_SCOPES`: what a client that asks for no scope
   * gets, and what the first 401's challenge names; default `tools:read`.
   */
  defaultScopes?: readonly string[];
  /** Development policy: loopback http metadata document URLs are allowed. */
  allowPrivateNetworks?: boolean;
  /** `PORTCULLIS_RATE_LIMIT_CLIENT_*`: token requests of one client from one address (none: no limit). */
  tokenRequests?: BucketRule | undefined;
  /**
   * The company's identity providers members sign in through: the guarded
   * client their metadata, keys and tokens are fetched with (a connection
   * each), and the `PORTCULLIS_IDP_*` variables their secrets are read from.
   */
  idp?: { http: GuardedClient; secrets: Readonly<Record<string, string>> };
  /**
   * `PORTCULLIS_OAUTH_STEP_UP`: the step-up form of a client that chose none
   * and whose redirect URIs are not ChatGPT's (`step-up-form.ts`); default `http`.
   */
  stepUp?: StepUpForm;
  /** Named as `resource_documentation`; default: the gateway's own page at `/docs/mcp`. */
  documentation?: string;
  now?: () => Date;
}

export const DOCUMENTATION_PATH = '/docs/mcp';

export class AuthorizationServer {
  readonly issuer: string;
  readonly #ctx: OAuthContext;
  readonly #documentation: string;
  /** Who a member is on this gateway's other pages (a personal sign-in link's). */
  readonly members: MemberSignIns;

  private constructor(ctx: OAuthContext, documentation: string) {
    this.issuer = ctx.issuer;
    this.#ctx = ctx;
    this.#documentation = documentation;
    this.members = memberSignIns(ctx);
  }

  static async open(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
    const issuer = issuerOf(options.issuer);
    const now = options.now ?? (() => new Date());
    const allowlist = new RedirectAllowlist(options.redirectAllowlist ?? []);
    const keys = await SigningKeys.open({
      store: options.store,
      vault: options.vault,
      pem: options.signingKeyPem,
      now,
    });
    const documents = new ClientMetadataDocuments({
      client: options.outbound,
      allowlist,
      allowLoopbackHttp: options.allowPrivateNetworks ?? false,
    });
    return new AuthorizationServer(
      {
        issuer,
        store: options.store,
        state: options.state,
        keys,
        clients: new ClientDirectory(options.store, documents, allowlist, options.stepUp ?? 'http'),
        allowlist,
        resources: new Resources(issuer),
        now,
        defaultScopes: [...(options.defaultScopes ?? [DEFAULT_SCOPE])].sort(),
        secureCookies: issuer.startsWith('https:'),
        tokenRequests: options.tokenRequests,
        idps: new IdpDirectory({
          http: options.idp?.http ?? options.outbound,
          policy: {
            allowPrivateNetworks: options.allowPrivateNetworks ?? false,
            ownOrigin: new URL(issuer).origin,
          },
          secrets: options.idp?.secrets ?? {},
          now,
        }),
        vault: options.vault,
        stepUp: options.stepUp ?? 'http',
        keySets: new RemoteKeySets(options.idp?.http ?? options.outbound),
        jtis: new JtiLedger(options.state, options.store),
      },
      options.documentation ?? `${issuer}${DOCUMENTATION_PATH}`,
    );
  }

  /** The `scope` a 401's challenge names: the scopes a client gets when it asks for none. */
  get challengeScope(): string {
    return this.#ctx.defaultScopes.join(' ');
  }

  get keys(): SigningKeys {
    return this.#ctx.keys;
  }

  /** The strategy `/mcp` (audience `resourceOf(issuer)`) accepts this server's access tokens with. */
  accessTokens(path: string = MCP_PATH, now?: () => number): AccessTokens {
    const { store } = this.#ctx;
    return new AccessTokens({
      issuer: this.issuer,
      audience: resourceOf(this.issuer, path),
      connectionAudiencePrefix: resourceOf(this.issuer, CONNECTION_MCP_PREFIX),
      publicKeyFor: (kid, revision) => this.#ctx.keys.publicKeyFor(kid, revision),
      isLive: async (claims) => {
        if (claims.consent === undefined || claims.family === undefined) {
          // A machine client's: while it is registered, as the agent and workspace it names.
          const machine = await store.oauth.machineClients.byId(claims.client_id);
          return machine?.agentId === claims.agent && machine.workspaceId === claims.workspace;
        }
        const [consent, family] = await Promise.all([
          store.oauth.consents.byId(claims.consent),
          store.oauth.tokens.family(claims.family),
        ]);
        return (
          consent?.status === 'active' &&
          consent.agentId === claims.agent &&
          consent.workspaceId === claims.workspace &&
          family?.status === 'active' &&
          family.consentId === consent.id &&
          family.clientId === claims.client_id
        );
      },
      stepUpOf: async (clientId) => (await this.#ctx.clients.stepUpOf(clientId)).form,
      ...(now ? { now } : {}),
    });
  }

  /** What an MCP endpoint's 401 names (RFC 9728 §5.1). */
  resourceMetadataUrl(path: string = MCP_PATH): string {
    return resourceMetadataUrl(this.issuer, path);
  }

  metadata(): OAuthReply {
    return documentReply(authorizationServerMetadata(this.issuer));
  }

  /** The protected resource metadata of an MCP endpoint path; 404 for a path that is not one. */
  /**
   * RFC 9728 metadata for `/mcp` (also at the bare well-known path) and for
   * every `/mcp/c/<name>` a connection could have, real or not (see `Resources`).
   */
  protectedResource(path: string): OAuthReply {
    const endpoint = endpointPathOf(path === '' ? MCP_PATH : path);
    if (endpoint === undefined)
      return jsonReply(404, {
        error: 'not_found',
        error_description: 'no MCP endpoint at this path',
      });
    return documentReply(protectedResourceMetadata(this.issuer, endpoint, this.#documentation));
  }

  authorize(query: URLSearchParams): Promise<OAuthReply> {
    return authorize(this.#ctx, query);
  }

  decide(
    form: ConsentForm,
    cookies: Readonly<Record<string, string>>,
    address: string,
  ): Promise<OAuthReply> {
    return decide(this.#ctx, form, cookies, address);
  }

  /** The identity providers the sign-in pages offer now. */
  idpOffers(): Promise<IdpOffers> {
    return idpOffers(this.#ctx);
  }

  /** `GET /sign-in/idp/<name>`: to the provider, to come back to `purpose`. */
  startIdpSignIn(name: string, purpose: IdpPurpose): Promise<OAuthReply> {
    return startIdpSignIn(this.#ctx, name, purpose);
  }

  /** `GET /sign-in/idp/callback`: the member the provider signed in (`idp_sign_in_failed` otherwise). */
  finishIdpSignIn(
    query: URLSearchParams,
    cookies: Readonly<Record<string, string>>,
  ): Promise<IdpSignedIn> {
    return finishIdpSignIn(this.#ctx, query, cookies);
  }

  /** The consent page's review step, for a member the provider signed in. */
  reviewAfterIdpSignIn(signedIn: IdpSignedIn): Promise<OAuthReply> {
    return reviewAfterIdpSignIn(this.#ctx, signedIn);
  }

  /** `portcullis idp sync`: the member's groups read again at the IdP, at once. */
  syncIdpMember(member: Member): Promise<IdpSync[]> {
    return syncIdpMember(this.#ctx, member);
  }

  /** Whether an issuer is an address a provider may have (`portcullis idp add`); why not, if not. */
  idpIssuerProblem(issuer: string): string | undefined {
    return this.#ctx.idps.issuerProblem(issuer);
  }

  /** `GET /oauth/consents`: a member's own consents, after sign-in. */
  memberConsents(cookies: Readonly<Record<string, string>>): Promise<OAuthReply> {
    return showMemberConsents(this.#ctx, cookies);
  }

  /** `POST /oauth/consents`: sign in, revoke one of one's own consents, sign out. */
  actOnMemberConsents(
    form: MemberConsentsForm,
    cookies: Readonly<Record<string, string>>,
    address: string,
  ): Promise<OAuthReply> {
    return actOnMemberConsents(this.#ctx, form, cookies, address);
  }

  /** `address`: the client's, which with its `client_id` its token requests are limited by. */
  token(
    form: TokenForm,
    authorization: string | undefined,
    address = 'unknown',
  ): Promise<OAuthReply> {
    return token(this.#ctx, form, authorization, address);
  }

  register(body: unknown, address: string): Promise<OAuthReply> {
    return register(this.#ctx, body, address);
  }

  revoke(form: Readonly<Record<string, string | undefined>>): Promise<OAuthReply> {
    return revoke(this.#ctx, form);
  }

  /** The page `resource_documentation` names. */
  documentationPage(): OAuthReply {
    return documentationPage(resourceOf(this.issuer), SCOPES_SUPPORTED);
  }

  jwks(): OAuthReply {
    return documentReply(this.#ctx.keys.jwks());
  }

  /** The enterprise IdP's ID-JAG for a member's ID token (`connection auth --id-jag`). */
  requestIdJag(request: IdJagRequest): Promise<string> {
    return requestIdJag(this.#ctx, request);
  }

  /** A subject token of ours for `acting`'s member, for a token exchange at `audience` (an upstream's issuer). */
  async mintSubjectToken(acting: ActingFor, audience: string): Promise<string> {
    const ctx = this.#ctx;
    return (await signSubjectToken(ctx.issuer, ctx.keys.current, acting, audience, ctx.now()))
      .token;
  }
}

/** The issuer: the URL without a trailing slash (RFC 8414 §2: no query or fragment). */
export function issuerOf(url: URL | string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}
