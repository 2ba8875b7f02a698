/**
 * Who is calling: the principal an MCP request's credential stands for, and
 * the governance snapshot that answer was read from, which the rest of the
 * request uses (so a request never sees two revisions). One strategy per kind
 * of credential, each recognising its own tokens: agent keys, and access
 * tokens from the gateway's authorization server.
 */
import { bearerToken } from '../../governance/keys.ts';
import type { GovernanceSnapshot } from '../../governance/snapshot.ts';
import type { Agent } from '../../model/governance.ts';
import type { StepUpForm } from '../../model/oauth.ts';

/** The current governance, fresh for the request that asks (see `GovernanceCache`). */
export interface GovernanceReader {
  current(): Promise<GovernanceSnapshot>;
}

/** How the caller proved who it is: an agent key, or an access token from the authorization server. */
export type CredentialKind = 'agent_key' | 'access_token';

/**
 * The OAuth scopes an access token carries (`tools:read`, `tools:write:<connection>`,
 * …): they narrow what the agent's grants and policies allow, never widen it.
 */
export type TokenScopes = ReadonlySet<string>;

/** What a strategy found a token stands for. */
export interface Verified {
  agent: Agent;
  /** Undefined: the credential is not narrowed by scopes (an agent key). */
  scopes?: TokenScopes;
  /**
   * The connection whose endpoint (`/mcp/c/<connection>`) an access token
   * was issued for: it is accepted there only. Undefined: anywhere (`/mcp`'s
   * tokens, agent keys).
   */
  boundToConnection?: string;
  /** How the token's client steps up (its registration's form); undefined: the endpoint's default. */
  stepUp?: StepUpForm;
  /** The OAuth client an access token was issued to; undefined for an agent key. */
  clientId?: string;
  /** The enterprise IdP whose ID-JAG an access token was issued from; undefined otherwise. */
  idp?: string;
}

/** An authenticated caller, for the rest of its request. */
export interface Caller {
  readonly agentId: string;
  readonly workspaceId: string;
  readonly via: CredentialKind;
  /** The scopes an access token carries; undefined for an agent key (its grants alone decide). */
  readonly scopes?: TokenScopes | undefined;
  /** The governance the credential was checked against; the request's decisions read it too. */
  readonly snapshot: GovernanceSnapshot;
  /** How its client steps up from `insufficient_scope`; undefined (agent keys): the endpoint's default. */
  readonly stepUp?: StepUpForm | undefined;
  /** The OAuth client an access token was issued to; undefined for an agent key. */
  readonly clientId?: string | undefined;
  /** The enterprise IdP whose ID-JAG the access token was issued from; undefined otherwise. */
  readonly idp?: string | undefined;
}

/** The caller's agent in the snapshot it was checked against, while active in its workspace. */
export function agentOf(caller: Caller): Agent | undefined {
  const agent = caller.snapshot.agentById(caller.agentId);
  return agent && agent.workspaceId === caller.workspaceId && agent.status === 'active'
    ? agent
    : undefined;
}

export interface CredentialStrategy {
  readonly kind: CredentialKind;
  /** Whether the token has this strategy's form (cheap; no lookup). */
  recognises(token: string): boolean;
  /** The agent (and scopes) the token stands for in this snapshot, if any. */
  verify(
    token: string,
    snapshot: GovernanceSnapshot,
  ): Verified | undefined | Promise<Verified | undefined>;
}

export class Principals {
  readonly #governance: GovernanceReader;
  readonly #strategies: readonly CredentialStrategy[];

  constructor(governance: GovernanceReader, strategies: readonly CredentialStrategy[]) {
    this.#governance = governance;
    this.#strategies = strategies;
  }

  /**
   * The caller behind an `Authorization` header; undefined for none or a bad
   * one, and for a token bound to another endpoint than `connection`'s (none: `/mcp`).
   */
  async authenticate(
    authorization: string | undefined,
    connection?: string,
  ): Promise<Caller | undefined> {
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    const strategy = this.#strategies.find((s) => s.recognises(token));
    if (strategy === undefined) return undefined;
    const snapshot = await this.#governance.current();
    const verified = await strategy.verify(token, snapshot);
    const agent = verified?.agent;
    if (agent?.status !== 'active') return undefined;
    if (verified?.boundToConnection !== undefined && verified.boundToConnection !== connection) {
      return undefined;
    }
    return {
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      via: strategy.kind,
      scopes: verified?.scopes,
      snapshot,
      ...(verified?.stepUp === undefined ? {} : { stepUp: verified.stepUp }),
      ...(verified?.clientId === undefined ? {} : { clientId: verified.clientId }),
      ...(verified?.idp === undefined ? {} : { idp: verified.idp }),
    };
  }

  /**
   * The caller of a call made earlier (a held call, approved), read against
   * the current governance: undefined once its agent is gone or not active
   * in that workspace. Its scopes, OAuth client and IdP are those the call's
   * credential carried, so its run acts for the same member, agent and
   * client (and names the same delegation chain) as the call did.
   */
  async restore(held: {
    agentId: string;
    workspaceId: string;
    via: CredentialKind;
    scopes?: readonly string[] | undefined;
    clientId?: string | undefined;
    idp?: string | undefined;
  }): Promise<Caller | undefined> {
    const snapshot = await this.#governance.current();
    const agent = snapshot.agentById(held.agentId);
    if (agent?.status !== 'active' || agent.workspaceId !== held.workspaceId) return undefined;
    return {
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      via: held.via,
      scopes: held.scopes === undefined ? undefined : new Set(held.scopes),
      snapshot,
      ...(held.clientId === undefined ? {} : { clientId: held.clientId }),
      ...(held.idp === undefined ? {} : { idp: held.idp }),
    };
  }
}
