/**
 * The access token a call to an `oauth` connection carries, kept working
 * without anyone's attention:
 *
 * - read from the store on every call (a sign-in, a sign-out or a refresh by
 *   another replica or the `portcullis` command is seen at once), opened
 *   once per sealed value;
 * - refreshed ahead of expiry, and once after an upstream 401;
 * - refreshes of one credential are single-flight in this process and take
 *   a lock in the shared state across replicas; inside the lock the tokens
 *   are read again (another replica may have refreshed them), and the
 *   rotated refresh token is stored before any call gets the new access
 *   token, so no one ever presents a refresh token the server rotated;
 * - a refusal (`invalid_grant`, `invalid_client`) puts the credential in
 *   `sign_in_required` with its reason; from then on calls fail with
 *   `oauth_sign_in_required` and nothing is sent to the server again until
 *   a person signs in.
 */
import { GatewayError } from '../../base/errors.ts';
import type {
  ActingFor,
  MintSubjectToken,
  OnBehalfSetting,
  RequestIdJag,
} from '../../model/delegation.ts';
import type { RemoteEndpoint } from '../../model/remote.ts';
import type { SignInReason } from '../../model/sign-in.ts';
import { withLock } from '../../ports/shared-state/shared-lock.ts';
import { DelegatedTokens } from './delegated-tokens.ts';
import { openTokens } from './sign-in-secrets.ts';
import type { TokenOwner } from './token-owner.ts';
import { clientCredentialsToken } from './upstream-grants.ts';
import {
  needsRefresh,
  parseBearerChallenge,
  refreshTokens,
  stepUpScopes,
  type TokenGrant,
  type TokenSet,
} from './upstream-oauth.ts';
import type { UpstreamSignIn } from './upstream-sign-in.ts';

const REFRESH_LOCK_TTL_MS = 30_000;

export type { TokenOwner } from './token-owner.ts';

/** What the call fails with when no token can be had: who must sign in, and how. */
export type SignInNeeded = (
  owner: TokenOwner,
  reason: SignInReason | 'never',
) => Promise<GatewayError>;

export class UpstreamTokens {
  readonly #signIn: UpstreamSignIn;
  readonly #needed: SignInNeeded;
  /** Sealed value → its token set (opened once). */
  readonly #opened = new Map<string, TokenSet>();
  readonly #refreshing = new Map<string, Promise<TokenSet>>();
  /** Tokens exchanged for members' own, on connections that act on their behalf. */
  readonly #delegated: DelegatedTokens;

  /**
   * `mint`: our own subject tokens (`--on-behalf-of portcullis`), and
   * `requestIdJag`: the enterprise IdP's ID-JAGs (`--id-jag`), both from the
   * authorization server.
   */
  constructor(
    signIn: UpstreamSignIn,
    needed: SignInNeeded,
    mint?: MintSubjectToken,
    requestIdJag?: RequestIdJag,
  ) {
    this.#signIn = signIn;
    this.#needed = needed;
    this.#delegated = new DelegatedTokens(signIn, mint, requestIdJag);
  }

  /** The token exchanged for `acting`'s member (RFC 8693), cached until shortly before it expires. */
  onBehalf(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<string> {
    return this.#delegated.accessToken(endpoint, owner, acting, setting);
  }

  /** A token for `acting`'s member now, kept nowhere (a draft connected with it). */
  onBehalfOnce(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
  ): Promise<TokenSet> {
    return this.#delegated.once(endpoint, owner, acting, setting);
  }

  /** After the upstream refused an exchanged token with a 401: exchanged once more. */
  onBehalfAfterRefusal(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    acting: ActingFor,
    setting: OnBehalfSetting,
    used: string,
  ): Promise<string> {
    return this.#delegated.afterRefusal(endpoint, owner, acting, setting, used);
  }

  /** The access token for a call, refreshed first when it is about to expire. */
  async accessToken(endpoint: RemoteEndpoint, owner: TokenOwner): Promise<string> {
    // The workspace's own client: a token by client credentials when none is kept yet.
    if (isMachine(endpoint, owner)) {
      const row = await this.#signIn.options.store.upstreamOAuth.tokens.get(
        owner.connectionId,
        owner.agentId,
      );
      if (!row || row.sealed === null || row.signInRequired !== null)
        return (await this.#refresh(endpoint, owner, '')).accessToken;
    }
    const tokens = await this.#current(owner);
    if (!needsRefresh(tokens, this.#signIn.options.now())) return tokens.accessToken;
    return (await this.#refresh(endpoint, owner, tokens.accessToken)).accessToken;
  }

  /**
   * After the upstream refused `used`: on a 401, a fresh token to try once
   * more (refreshed unless another call already did); on a 403 that asks for
   * more scope, `oauth_scope_insufficient` with the wider scopes a new
   * sign-in asks for (kept on the connection). Undefined: not the token's fault.
   */
  async afterRefusal(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    error: unknown,
    used: string,
  ): Promise<string | undefined> {
    if (!(error instanceof GatewayError) || error.code !== 'mcp_remote_status') return undefined;
    const status = error.detail?.status;
    const header = typeof error.detail?.challenge === 'string' ? error.detail.challenge : undefined;
    if (status === 403) {
      const challenge = parseBearerChallenge(header);
      if (challenge?.error !== 'insufficient_scope') return undefined;
      const tokens = await this.#current(owner);
      const wider = stepUpScopes(tokens.scopes, challenge);
      if (wider && endpoint.oauth)
        await this.#signIn.options.store.remoteEndpoints.put({
          ...endpoint,
          oauth: { ...endpoint.oauth, scopes: wider },
          updatedAt: this.#signIn.options.now().toISOString(),
        });
      const needed = await this.#needed(owner, 'scope_insufficient');
      throw new GatewayError('oauth_scope_insufficient', needed.message, {
        detail: { ...needed.detail, scope: (wider ?? tokens.scopes).join(' ') },
        cause: error,
      });
    }
    if (status !== 401) return undefined;
    return (await this.#refresh(endpoint, owner, used)).accessToken;
  }

  /**
   * The fresh token was refused too (a 401 again): the server no longer
   * takes this sign-in's tokens (it moved to another authorization server,
   * say), so the credential needs a new sign-in; no more refreshes.
   */
  async afterSecondRefusal(owner: TokenOwner, error: unknown): Promise<never> {
    if (
      error instanceof GatewayError &&
      error.code === 'mcp_remote_status' &&
      error.detail?.status === 401
    ) {
      await this.#signIn
        .tokens(owner.workspaceId, owner.connectionId, owner.agentId)
        .forgetBecause('token_refused');
      throw await this.#needed(owner, 'token_refused');
    }
    throw error;
  }

  async #current(owner: TokenOwner): Promise<TokenSet> {
    const row = await this.#signIn.options.store.upstreamOAuth.tokens.get(
      owner.connectionId,
      owner.agentId,
    );
    if (!row || row.sealed === null || row.signInRequired !== null)
      throw await this.#needed(owner, row?.signInRequired ?? 'never');
    let tokens = this.#opened.get(row.sealed);
    if (!tokens) {
      tokens = openTokens(this.#signIn.options.vault, row)!;
      if (this.#opened.size > 1000) this.#opened.clear();
      this.#opened.set(row.sealed, tokens);
    }
    return tokens;
  }

  /** One refresh per credential at a time, here and across replicas. */
  #refresh(endpoint: RemoteEndpoint, owner: TokenOwner, stale: string): Promise<TokenSet> {
    const key = `${owner.connectionId}/${owner.agentId ?? ''}`;
    const running = this.#refreshing.get(key);
    if (running) return running;
    const refreshing = withLock(
      this.#signIn.options.state,
      `upstream-oauth/refresh/${key}`,
      { ttlMs: REFRESH_LOCK_TTL_MS },
      async () => {
        if (isMachine(endpoint, owner)) return this.#machineTokens(endpoint, owner, stale);
        // Another replica may have refreshed while this one waited for the lock.
        const tokens = await this.#current(owner);
        if (tokens.accessToken !== stale && !needsRefresh(tokens, this.#signIn.options.now()))
          return tokens;
        return this.#refreshNow(endpoint, owner, tokens);
      },
    ).finally(() => {
      if (this.#refreshing.get(key) === refreshing) this.#refreshing.delete(key);
    });
    this.#refreshing.set(key, refreshing);
    return refreshing;
  }

  /**
   * The workspace's own token (client credentials), kept sealed in the store
   * as a sign-in's tokens are (every replica reads it there); asked for
   * again when none is kept, when it is due, or when `stale` was refused.
   */
  async #machineTokens(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    stale: string,
  ): Promise<TokenSet> {
    const { store: rows, vault, now } = this.#signIn.options;
    const row = await rows.upstreamOAuth.tokens.get(owner.connectionId, owner.agentId);
    const kept = row && row.signInRequired === null ? openTokens(vault, row) : undefined;
    if (kept && kept.accessToken !== stale && !needsRefresh(kept, now())) return kept;
    const oauth = endpoint.oauth!;
    const setting = oauth.delegation!.machine!;
    const client = await this.#signIn.clients(owner.workspaceId, owner.connectionId).load();
    if (!client)
      throw new GatewayError(
        'oauth_client_required',
        `connection ${owner.connectionName} has no client of the workspace's own at its authorization server: portcullis connection auth ${owner.connectionName} --client-credentials ${setting.auth} --client-id <id> --client-secret-env <VAR>`,
        { field: 'client_id' },
      );
    const grant: TokenGrant = {
      metadata: oauth.metadata,
      client,
      resource: oauth.resource,
      sendResource: !oauth.omitResource,
    };
    const next = await clientCredentialsToken(grant, setting, oauth.scopes, this.#signIn.context);
    await this.#signIn.tokens(owner.workspaceId, owner.connectionId, owner.agentId).save(next);
    return next;
  }

  async #refreshNow(
    endpoint: RemoteEndpoint,
    owner: TokenOwner,
    tokens: TokenSet,
  ): Promise<TokenSet> {
    const store = this.#signIn.tokens(owner.workspaceId, owner.connectionId, owner.agentId);
    const oauth = endpoint.oauth;
    const client = await this.#signIn.clients(owner.workspaceId, owner.connectionId).load();
    if (!oauth || !client || tokens.refreshToken === undefined) {
      await store.forgetBecause(client ? 'invalid_grant' : 'invalid_client');
      throw await this.#needed(owner, client ? 'invalid_grant' : 'invalid_client');
    }
    const grant: TokenGrant = {
      metadata: oauth.metadata,
      client,
      resource: oauth.resource,
      sendResource: !oauth.omitResource,
    };
    let next: TokenSet;
    try {
      next = await refreshTokens(grant, tokens, this.#signIn.context);
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'oauth_sign_in_required') {
        const reason: SignInReason =
          error.detail?.oauthError === 'invalid_client' ? 'invalid_client' : 'invalid_grant';
        await store.forgetBecause(reason);
        throw await this.#needed(owner, reason);
      }
      throw error;
    }
    // Stored before any call gets the new access token.
    await store.save(next);
    return next;
  }
}

/** Whether the owner's credential is the workspace's own client (client credentials), not a sign-in. */
function isMachine(endpoint: RemoteEndpoint, owner: TokenOwner): boolean {
  return owner.agentId === null && endpoint.oauth?.delegation?.machine !== undefined;
}
