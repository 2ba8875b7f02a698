/** What every endpoint of the authorization server works with. */

import type { ReasonCode } from '../../base/errors.ts';
import { auditEvent } from '../../governance/audit-event.ts';
import type { NewAuditEvent } from '../../model/governance.ts';
import type { StepUpForm } from '../../model/oauth.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { BucketRule } from '../../ports/shared-state/token-bucket.ts';
import type { Store } from '../../ports/store.ts';
import type { ClientDirectory } from './client-directory.ts';
import type { OAuthError, OAuthErrorCode } from './oauth-error.ts';
import type { RedirectAllowlist } from './redirect-uris.ts';
import type { Resources } from './resources.ts';
import type { SigningKeys } from './signing-keys.ts';

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
  /** `PORTCULLIS_OAUTH_STEP_UP`: the step-up form of a client that chose none and is not ChatGPT. */
  stepUp: StepUpForm;
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

/** The audit event of an OAuth refusal: the RFC's error string as its subject. */
export function refusalEvent(error: OAuthError): Partial<NewAuditEvent> {
  return {
    decision: 'denied',
    outcome: null,
    reason: auditReasonOf(error.error),
    subject: error.error,
  };
}
