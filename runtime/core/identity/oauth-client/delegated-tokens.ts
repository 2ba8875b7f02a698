/**
 * The upstream token a call of an agent acting for a member carries, on a
 * connection set to act on the member's behalf (issue 35, RFC 8693): the
 * member's subject token (the ID token or access token of their last
 * sign-in at the company's IdP, opened from the vault) exchanged at the
 * connection's authorization server for a token with the connection's
 * `resource` and `audience`. Portcullis's own access tokens never go
 * upstream: the subject token is always the IdP's.
 *
 * Exchanged tokens are cached per connection, member and agent (and the
 * resource, audience and subject token type they were exchanged for) until
 * a minute before they expire, so a repeated call makes no request to the
 * authorization server: in this process, and sealed in the shared state
 * (`exchanged-tokens.ts`), so another replica takes the same token instead
 * of exchanging its own. One exchange per entry at a time in a process.
 * Both are keyed by the member's epoch too (`member-epoch.ts`): `idp sync`,
 * a new sign-in at the IdP or the member's removal leaves no replica a token
 * exchanged before.
 *
 * A connection set with `--id-jag <idp>` (Enterprise-Managed Authorization,
 * `enterprise-authorization.ts`) gets its token the same way, cached the
 * same: the member's ID token traded at the IdP for an ID-JAG, redeemed at
 * the connection's authorization server.
 */
import { GatewayError } from '../../base/errors.ts';
import {
  type ActingFor,
  ID_JAG_TOKEN_TYPE,
  type MintSubjectToken,
  type OnBehalfSetting,
  type RequestIdJag,
  SUBJECT_TOKEN_TYPES,
  type SubjectTokens,
  subjectTokensPlace,
} from '../../model/delegation.ts';
import type { RemoteEndpoint } from '../../model/remote.ts';
import type { TokenGrant, TokenSet } from './engine-contract.ts';
import { redeemIdJag } from './enterprise-authorization.ts';
import { ExchangedTokens, type ExchangeFor, entryId } from './exchanged-tokens.ts';
import { MemberEpochs } from './member-epoch.ts';
import type { TokenOwner } from './token-owner.ts';
import { needsRefresh } from './tokens.ts';
import { exchangeToken } from './upstream-grants.ts';
import type { UpstreamSignIn } from './upstream-sign-in.ts';

const MAX_CACHED = 10_000;
/** A subject token this close to its expiry is not sent (it could expire on the way). */
const SUBJECT_SKEW_MS = 30_000;

interface Cached {
  tokens: TokenSet;
}

export class DelegatedTokens {
  readonly #signIn: UpstreamSignIn;
  readonly #mint: MintSubjectToken | undefined;
  readonly #requestIdJag: RequestIdJag | undefined;
  readonly #cached = new Map<string, Cached>();
  readonly #exchanging = new Map<string, Promise<TokenSet>>();
  readonly #shared: ExchangedTokens;
  readonly #epochs: MemberEpochs;

  /** `requestIdJag`: the enterprise IdP's ID-JAGs (`--id-jag`), through the authorization server's providers. */
  constructor(signIn: UpstreamSignIn, mint?: MintSubjectToken, requestIdJag?: RequestIdJag) {
    this.#signIn = signIn;
    this.#mint = mint;
    this.#requestIdJag = requestIdJag;
    const { state, store, vault, now } = signIn.options;
    this.#shared = new ExchangedTokens({ state, store, vault, now });
    this.#epochs = new MemberEpochs(store);
  }

  /** The exchanged token for `acting`'s member on the connection; exchanged now when none is cached or it is due. */
  async accessToken(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<string> {
    const of = exchangeFor(endpoint, owner, acting, setting, await this.#epochs.of(acting));
    const key = entryId(of);
    const cached = this.#cached.get(key);
    if (cached && !needsRefresh(cached.tokens, this.#signIn.options.now()))
      return cached.tokens.accessToken;
    return (await this.#exchange(key, of, endpoint, owner, acting, setting)).accessToken;
  }

  /**
   * A token for `acting`'s member now, not cached: what connects a draft
   * whose only credentials are members' own (`connection auth --connect-as`).
   */
  once(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<TokenSet> {
    return this.#exchangeNow(endpoint, owner, acting, setting);
  }

  /** After the upstream refused `used` (a 401): forgotten, and exchanged once more. */
  async afterRefusal(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
    used: string,
  ): Promise<string> {
    const of = exchangeFor(endpoint, owner, acting, setting, await this.#epochs.of(acting));
    const key = entryId(of);
    if (this.#cached.get(key)?.tokens.accessToken === used) this.#cached.delete(key);
    await this.#shared.forget(of, used);
    return this.accessToken(endpoint, owner, acting, setting);
  }

  #exchange(
    key: string,
    of: ExchangeFor,
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<TokenSet> {
    const running = this.#exchanging.get(key);
    if (running) return running;
    const exchanging = this.#sharedOrExchanged(of, endpoint, owner, acting, setting)
      .then((tokens) => {
        if (this.#cached.size >= MAX_CACHED) this.#cached.clear();
        this.#cached.set(key, { tokens });
        return tokens;
      })
      .finally(() => {
        if (this.#exchanging.get(key) === exchanging) this.#exchanging.delete(key);
      });
    this.#exchanging.set(key, exchanging);
    return exchanging;
  }

  /** Another replica's token for the same when it is not due; else exchanged now, and shared. */
  async #sharedOrExchanged(
    of: ExchangeFor,
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<TokenSet> {
    const shared = await this.#shared.read(of);
    if (shared && !needsRefresh(shared, this.#signIn.options.now())) return shared;
    const tokens = await this.#exchangeNow(endpoint, owner, acting, setting);
    await this.#shared.write(of, tokens);
    return tokens;
  }

  async #exchangeNow(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<TokenSet> {
    const oauth = endpoint.oauth;
    if (!oauth)
      throw new GatewayError(
        'oauth_sign_in_required',
        `connection ${owner.connectionName} has no authorization server to exchange at`,
      );
    const subject =
      setting.subjectToken === 'portcullis'
        ? { token: await this.#minted(acting, oauth.issuer), issuer: '' }
        : await this.#subjectToken(owner, acting, setting);
    const client = await this.#signIn.clients(owner.workspaceId, owner.connectionId).load();
    if (!client)
      throw new GatewayError(
        'oauth_client_required',
        `connection ${owner.connectionName} has no client at its authorization server to exchange tokens with: portcullis connection auth ${owner.connectionName} --on-behalf-of ${setting.subjectToken} --client-id <id> --client-secret-env <VAR>`,
        { field: 'client_id' },
      );
    const grant: TokenGrant = {
      metadata: oauth.metadata,
      client,
      resource: oauth.resource,
      sendResource: !oauth.omitResource,
    };
    if (setting.idJag !== undefined) {
      if (!this.#requestIdJag)
        throw new TypeError('ID-JAGs need the authorization server and its identity providers');
      const idJag = await this.#requestIdJag({
        provider: setting.idJag,
        issuer: subject.issuer,
        idToken: subject.token,
        audience: oauth.issuer,
        resource: oauth.resource,
        scopes: oauth.scopes,
      });
      return redeemIdJag(grant, idJag, oauth.scopes, this.#signIn.context);
    }
    return exchangeToken(
      grant,
      {
        subjectToken: subject.token,
        subjectTokenType: SUBJECT_TOKEN_TYPES[setting.subjectToken],
        audience: setting.audience,
        scopes: oauth.scopes,
        clientAuth: oauth.delegation?.machine?.auth,
      },
      this.#signIn.context,
    );
  }

  #minted(acting: ActingFor, audience: string): Promise<string> {
    if (!this.#mint) throw new TypeError('minting subject tokens needs the authorization server');
    return this.#mint(acting, audience);
  }

  /** The member's token to exchange, from their last IdP sign-in; `idp_session_required` when there is none live. */
  async #subjectToken(
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<{ token: string; issuer: string }> {
    const { store, vault, now } = this.#signIn.options;
    const row = await store.identity.latestSubjectTokens(acting.memberId);
    const required = (why: string) =>
      new GatewayError(
        'idp_session_required',
        `connection ${owner.connectionName} acts on the member's behalf and ${why}: the member must sign in through the identity provider again`,
        { detail: { subjectToken: setting.subjectToken } },
      );
    if (!row) throw required("the member has no sign-in at the company's identity provider");
    let kept: SubjectTokens;
    try {
      kept = JSON.parse(
        vault.openAt(subjectTokensPlace(row.issuer, row.subject), row.sealed),
      ) as SubjectTokens;
    } catch {
      throw required('the sign-in kept cannot be opened with the loaded master keys');
    }
    const [token, expiresAt]: [string | undefined, string | undefined] =
      setting.subjectToken === 'id_token'
        ? [kept.idToken, kept.idTokenExpiresAt]
        : [kept.accessToken, kept.accessTokenExpiresAt];
    if (token === undefined || expiresAt === undefined)
      throw required(`the sign-in gave no ${setting.subjectToken.replace('_', ' ')} that expires`);
    if (Date.parse(expiresAt) - SUBJECT_SKEW_MS <= now().getTime())
      throw required(
        `the ${setting.subjectToken.replace('_', ' ')} of the member's last sign-in has expired`,
      );
    return { token, issuer: row.issuer };
  }
}

function exchangeFor(
  endpoint: RemoteEndpoint,
  owner: TokenOwner,
  acting: ActingFor,
  setting: OnBehalfSetting,
  epoch: string,
): ExchangeFor {
  return {
    connectionId: owner.connectionId,
    acting,
    epoch,
    resource: endpoint.oauth?.resource ?? '',
    audience: setting.audience,
    subjectTokenType:
      setting.idJag === undefined
        ? SUBJECT_TOKEN_TYPES[setting.subjectToken]
        : `${ID_JAG_TOKEN_TYPE} ${setting.idJag}`,
  };
}
