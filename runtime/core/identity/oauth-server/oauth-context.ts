/** What every endpoint of the authorization server works with. */

import type { ReasonCode } from '../../base/errors.ts';
import { auditEvent } from '../../governance/audit-event.ts';
import type { NewAuditEvent } from '../../model/governance.ts';
import type { StepUpForm } from '../../model/oauth.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { BucketRule } from '../../ports/shared-state/token-bucket.ts';
import type { Store } from '../../ports/store.ts';
import type { ClientDirectory } from './client-directory.ts';
import type { IdpDirectory } from './idp-directory.ts';
import type { JtiLedger } from './jti-ledger.ts';
import type { OAuthError, OAuthErrorCode } from './oauth-error.ts';
import type { RedirectAllowlist } from './redirect-uris.ts';
import type { RemoteKeySets } from './remote-key-sets.ts';
import type { Resources } from './resources.ts';
import type { SecretVault, SigningKeys } from './signing-keys.ts';

export interface OAuthContext {
  /** Exactly `PORTCULLIS_PUBLIC_URL` (no trailing slash): `iss` everywhere. */
  issuer: string;
  store: Store;
  /** Codes, approved consent requests and rate-limit counters, with their TTLs. */
  state: SharedState;
  keys: SigningKeys;
  clients: ClientDirectory;
  allowlist: RedirectAllowlist;
  resources: Resources;
  now: () => Date;
  /** What a client that asks for no scope gets (`PORTCULLIS_OAUTH_DEFAULT_SCOPES`), sorted. */
  defaultScopes: readonly string[];
  /** Whether the consent page's cookie needs `Secure` (an https issuer). */
  secureCookies: boolean;
  /** `PORTCULLIS_RATE_LIMIT_CLIENT_*`: token requests of one client from one address; none: no limit. */
  tokenRequests: BucketRule | undefined;
  /** The company's OpenID providers members sign in through: their metadata, keys and secrets. */
  idps: IdpDirectory;
  /** Seals what the IdP sign-in keeps (the IdP's refresh token) under the master key. */
  vault: SecretVault;
  /** `PORTCULLIS_OAUTH_STEP_UP`: the step-up form of a client that chose none and is not ChatGPT. */
  stepUp: StepUpForm;
  /** Machine clients' and trusted IdPs' public keys (JWKS URLs), fetched through the guarded client. */
  keySets: RemoteKeySets;
  /** The `jti`s of the JWTs the token endpoint took, shared by every replica. */
  jtis: JtiLedger;
}

/** The gateway reason an OAuth refusal is audited under. */
export function auditReasonOf(code: OAuthErrorCode): ReasonCode {
  switch (code) {
    case 'invalid_client':
    case 'invalid_grant':
    case 'unauthorized_client':
      return 'unauthenticated';
    case 'access_denied':
      return 'not_granted';
    case 'temporarily_unavailable':
      return 'rate_limited';
    case 'server_error':
      return 'internal';
    default:
      return 'invalid_input';
  }
}

type Event = Pick<NewAuditEvent, 'action'> & Partial<NewAuditEvent>;

/** One audit event of the authorization server (never a code, token or password in it). */
export async function auditOAuth(ctx: OAuthContext, event: Event): Promise<void> {
  await ctx.store.audit.append(
    auditEvent({
      at: ctx.now().toISOString(),
      actorKind: 'system',
      actorId: 'oauth',
      decision: 'allowed',
      outcome: 'ok',
      ...event,
    }),
  );
}

/**
 * The audit event of an OAuth refusal: the RFC's error string as its
 * subject, followed by the token endpoint's own reason when it has one
 * (`invalid_grant:id_jag_replayed`).
 */
export function refusalEvent(error: OAuthError): Partial<NewAuditEvent> {
  return {
    decision: 'denied',
    outcome: null,
    reason: auditReasonOf(error.error),
    subject: error.refusal === undefined ? error.error : `${error.error}:${error.refusal}`,
  };
}
