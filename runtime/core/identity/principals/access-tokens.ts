/**
 * Access tokens from the gateway's own authorization server, as a credential
 * strategy. A token is checked in full once: its signature (ES256 or RS256,
 * by a trusted `kid`; never `alg: none`), `typ`, `iss`, `aud` (`/mcp`'s
 * resource, or one connection's `/mcp/c/<connection>`: such a token is
 * accepted on that endpoint only, its scopes narrowed to that connection), expiry, and that its consent and refresh-token family
 * are still live and its agent is in the workspace it names. The verdict is
 * then remembered until the token expires or the governance revision moves
 * (a revoked consent, family or agent moves it, and so does a client's
 * step-up form, which the verdict keeps), so a call with a token costs
 * about what a call with an agent key does.
 */
import type { KeyObject } from 'node:crypto';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import type { GovernanceSnapshot } from '../../governance/snapshot.ts';
import type { StepUpForm } from '../../model/oauth.ts';
import type { CredentialStrategy, TokenScopes, Verified } from './principals.ts';
import { isConnectionName, narrowToConnection } from './scopes.ts';

/** A member's token names its consent and family; a machine client's, neither. */
export interface AccessTokenClaimsSeen {
  workspace: string;
  agent: string;
  consent?: string;
  family?: string;
  client_id: string;
}

export interface AccessTokensOptions {
  issuer: string;
  /** The resource tokens are for (`aud`): `/mcp`'s canonical URL. */
  audience: string;
  /**
   * `aud` may also be this followed by a connection's name (`…/mcp/c/<name>`):
   * such a token acts on that connection's tools only.
   */
  connectionAudiencePrefix?: string;
  /**
   * The trusted public key with that `kid`, as trusted at governance
   * `revision` (a key revoked since is not).
   */
  publicKeyFor(kid: string | undefined, revision: number): Promise<{ key: KeyObject } | undefined>;
  /** Whether the token's consent and family are still live (the store). */
  isLive(claims: AccessTokenClaimsSeen): Promise<boolean>;
  /** How the token's client steps up (its registration's form); none: the endpoint's default. */
  stepUpOf?(clientId: string): Promise<StepUpForm>;
  now?: () => number;
}

interface Verdict {
  revision: number;
  agentId: string;
  workspaceId: string;
  scopes: TokenScopes;
  boundToConnection: string | undefined;
  expiresAtMs: number;
  stepUp: StepUpForm | undefined;
  clientId: string;
  /** The enterprise IdP whose ID-JAG the token was issued from (its `idp` claim). */
  idp: string | undefined;
}

const MAX_VERDICTS = 10_000;
const JWT_FORM = /^eyJ[\w-]*\.eyJ[\w-]*\.[\w-]*$/;

export class AccessTokens implements CredentialStrategy {
  readonly kind = 'access_token';
  readonly #options: AccessTokensOptions;
  readonly #now: () => number;
  readonly #verdicts = new Map<string, Verdict>();

  constructor(options: AccessTokensOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  recognises(token: string): boolean {
    return JWT_FORM.test(token);
  }

  async verify(token: string, snapshot: GovernanceSnapshot): Promise<Verified | undefined> {
    let verdict = this.#verdicts.get(token);
    if (
      verdict === undefined ||
      verdict.revision !== snapshot.revision ||
      verdict.expiresAtMs <= this.#now()
    ) {
      this.#verdicts.delete(token);
      verdict = await this.#check(token, snapshot.revision);
      if (verdict === undefined) return undefined;
      if (this.#verdicts.size >= MAX_VERDICTS) this.#verdicts.clear();
      this.#verdicts.set(token, verdict);
    }
    const agent = snapshot.agentById(verdict.agentId);
    if (agent === undefined || agent.workspaceId !== verdict.workspaceId) return undefined;
    return {
      agent,
      scopes: verdict.scopes,
      clientId: verdict.clientId,
      ...(verdict.idp === undefined ? {} : { idp: verdict.idp }),
      ...(verdict.stepUp === undefined ? {} : { stepUp: verdict.stepUp }),
      ...(verdict.boundToConnection === undefined
        ? {}
        : { boundToConnection: verdict.boundToConnection }),
    };
  }

  async #check(token: string, revision: number): Promise<Verdict | undefined> {
    const { issuer } = this.#options;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header) => {
          const found = await this.#options.publicKeyFor(header.kid, revision);
          if (!found) throw new errors.JWKSNoMatchingKey();
          return found.key;
        },
        {
          issuer,
          algorithms: ['ES256', 'RS256'],
          typ: 'at+jwt',
          requiredClaims: ['exp', 'iat', 'sub', 'jti'],
          currentDate: new Date(this.#now()),
        },
      ));
    } catch (error) {
      if (error instanceof errors.JOSEError) return undefined;
      throw error;
    }
    const audience = this.#audienceOf(
      payload.aud,
      typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
    );
    if (audience === undefined) return undefined;
    const claims = claimsOf(payload);
    if (claims === undefined || !(await this.#options.isLive(claims))) return undefined;
    return {
      revision,
      agentId: claims.agent,
      workspaceId: claims.workspace,
      scopes: audience.scopes,
      boundToConnection: audience.connection,
      expiresAtMs: (payload.exp ?? 0) * 1000,
      stepUp: await this.#options.stepUpOf?.(claims.client_id),
      clientId: claims.client_id,
      idp: typeof payload.idp === 'string' ? payload.idp : undefined,
    };
  }

  /**
   * Whom `aud` names: `/mcp` (every scope as given), or one connection's
   * endpoint (every scope narrowed to it); undefined when it is none of ours.
   */
  #audienceOf(
    aud: JWTPayload['aud'],
    scopes: string[],
  ): { scopes: TokenScopes; connection?: string } | undefined {
    const { audience, connectionAudiencePrefix: prefix } = this.#options;
    const audiences = typeof aud === 'string' ? [aud] : (aud ?? []);
    if (audiences.includes(audience)) return { scopes: new Set(scopes) };
    if (prefix === undefined || audiences.length !== 1) return undefined;
    const [only] = audiences as [string];
    const connection = only.startsWith(prefix) ? only.slice(prefix.length) : '';
    if (!isConnectionName(connection)) return undefined;
    return { scopes: narrowToConnection(scopes, connection), connection };
  }
}

function claimsOf(payload: JWTPayload): AccessTokenClaimsSeen | undefined {
  const { workspace, agent, consent, family, client_id } = payload;
  if (typeof workspace !== 'string' || typeof agent !== 'string' || typeof client_id !== 'string')
    return undefined;
  if (consent === undefined && family === undefined) return { workspace, agent, client_id };
  if (typeof consent !== 'string' || typeof family !== 'string') return undefined;
  return { workspace, agent, consent, family, client_id };
}
