/**
 * How a remote connection authenticates at its authorization server beyond a
 * person's sign-in (issue 35): as the workspace's own machine identity
 * (client credentials) for its shared credential, and, for a call of an
 * agent that acts for a member, with a token exchanged (RFC 8693) for the
 * member's own.
 */

import { createHash } from 'node:crypto';

/**
 * What the member's token to exchange is: a token of their last sign-in at
 * the company's IdP, or (`portcullis`) a short JWT Portcullis signs for the
 * purpose (never one of its access tokens).
 */
export type SubjectTokenSource = 'id_token' | 'access_token' | 'portcullis';

export const SUBJECT_TOKEN_SOURCES = ['id_token', 'access_token', 'portcullis'] as const;

/** Signs a subject token of ours for the member `acting` names, for an exchange at `audience`. */
export type MintSubjectToken = (acting: ActingFor, audience: string) => Promise<string>;

/** RFC 8693 §3 token type identifiers of each source. */
export const SUBJECT_TOKEN_TYPES: Readonly<Record<SubjectTokenSource, string>> = {
  id_token: 'urn:ietf:params:oauth:token-type:id_token',
  access_token: 'urn:ietf:params:oauth:token-type:access_token',
  portcullis: 'urn:ietf:params:oauth:token-type:jwt',
};

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 §2.1: an assertion (here an ID-JAG) as the grant. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The ID-JAG's token type (Identity Assertion JWT Authorization Grant). */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

/** What the enterprise IdP is asked for an ID-JAG with (Enterprise-Managed Authorization). */
export interface IdJagRequest {
  /** The identity provider's name (`connection auth --id-jag <idp>`). */
  provider: string;
  /** The issuer of the member's sign-in the ID token is from: it must be the provider's. */
  issuer: string;
  idToken: string;
  /** The upstream's authorization server (its issuer), the ID-JAG's `aud`. */
  audience: string;
  /** The upstream's `resource`. */
  resource: string;
  scopes: readonly string[];
}

/** Trades the member's ID token at the enterprise IdP for an ID-JAG (RFC 8693); the ID-JAG. */
export type RequestIdJag = (request: IdJagRequest) => Promise<string>;

/** A call of an agent that acts for a member carries a token exchanged for the member's. */
export interface OnBehalfSetting {
  subjectToken: SubjectTokenSource;
  /** RFC 8693 `audience`; absent: the connection's `resource` alone names the upstream. */
  audience?: string;
  /**
   * Enterprise-Managed Authorization: the name of the identity provider the
   * member's ID token is traded at for an ID-JAG, which the upstream's
   * authorization server redeems (jwt-bearer); absent: RFC 8693 at the
   * upstream's authorization server.
   */
  idJag?: string;
}

/** The connection's shared credential is the workspace's own client at the upstream (client credentials). */
export interface MachineSetting {
  /** `client_secret_basic`: the connection's client and its sealed secret; `private_key_jwt`: its sealed private key. */
  auth: 'client_secret_basic' | 'private_key_jwt';
}

/** A remote `oauth` connection's auth setting beyond a person's sign-in (kept with its OAuth discovery). */
export interface UpstreamDelegation {
  onBehalf?: OnBehalfSetting;
  machine?: MachineSetting;
}

/** Whom a call acts for: the member, the agent their consent made, the OAuth client it runs in. */
export interface ActingFor {
  memberId: string;
  agentId: string;
  /** The client the access token was issued to; null for an agent key. */
  clientId: string | null;
  /**
   * The enterprise IdP (its provider's name) whose ID-JAG the access token
   * was issued from (RFC 7523 jwt-bearer); absent for every other token.
   */
  idp?: string;
  /**
   * The governance revision the caller was checked at: what a replica keeps
   * for the member (their exchanged upstream tokens) is taken as it is
   * while the revision stands, and read again once it moves.
   */
  readAt?: number;
}

/** The delegation chain as the audit event records it (` idp:<provider>` last, for an ID-JAG's token). */
export function delegationText(acting: ActingFor): string {
  const chain = `member:${acting.memberId} agent:${acting.agentId} client:${acting.clientId ?? '-'}`;
  return acting.idp === undefined ? chain : `${chain} idp:${acting.idp}`;
}

/** What `delegationText` wrote, read back (the member's part begins every chain); undefined for any other text. */
export function delegationOf(text: string | null | undefined): ActingFor | undefined {
  const found = /^member:(\S+) agent:(\S+) client:(\S+)(?: idp:(\S+))?$/.exec(text ?? '');
  if (found === null) return undefined;
  const [, memberId = '', agentId = '', clientId = '-', idp] = found;
  return {
    memberId,
    agentId,
    clientId: clientId === '-' ? null : clientId,
    ...(idp === undefined ? {} : { idp }),
  };
}

/** The start of every chain that names this member (`delegationText`'s). */
export function delegationPrefix(memberId: string): string {
  return `member:${memberId} `;
}

/**
 * What a member's sign-in at the company's IdP keeps to act on their behalf
 * upstream (sealed under the master key at `subjectTokensPlace`): the raw
 * ID token and access token, and when each expires (ISO).
 */
export interface SubjectTokens {
  idToken: string;
  idTokenExpiresAt: string;
  accessToken?: string;
  accessTokenExpiresAt?: string;
}

/** Where an identity's subject tokens are sealed (the vault binds the seal to it). */
export function subjectTokensPlace(issuer: string, subject: string): string {
  return `idp-subject:${createHash('sha256').update(`${issuer}\n${subject}`).digest('hex')}`;
}
