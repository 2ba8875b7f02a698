/**
 * What an authorization server said, reduced to what may be shown: the RFC
 * error code (RFC 6749 §4.1.2.1, §5.2; RFC 7591 §3.2.2; RFC 8707 §2; RFC
 * 6750 §3.1) from a closed set, else `other`. The server's
 * `error_description`, its `error_uri`, its body and headers are never
 * repeated: they are its text, and may echo what was sent (a code, a secret).
 */
import * as oauth from 'oauth4webapi';
import { GatewayError, type ReasonCode } from '../../base/errors.ts';

const RFC_ERRORS: ReadonlySet<string> = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'consent_required',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'invalid_software_statement',
  'unapproved_software_statement',
  'unsupported_token_type',
  'invalid_token',
  'insufficient_scope',
]);

/** The RFC error code, or `other` for anything outside the closed set. */
export function rfcErrorCode(value: unknown): string {
  return typeof value === 'string' && RFC_ERRORS.has(value) ? value : 'other';
}

/** The step that failed, named in messages. */
export type OAuthStep =
  | 'registration'
  | 'code exchange'
  | 'refresh'
  | 'revocation'
  | 'token exchange'
  | 'client credentials'
  | 'id-jag request'
  | 'jwt bearer';

/** The code a step's failure is, when not a refusal of `resource` or of a refresh. */
function failedCode(step: OAuthStep): ReasonCode {
  if (step === 'registration') return 'oauth_registration_failed';
  if (step === 'token exchange') return 'upstream_token_exchange_failed';
  if (step === 'client credentials') return 'upstream_client_credentials_failed';
  if (step === 'id-jag request') return 'idp_id_jag_failed';
  if (step === 'jwt bearer') return 'upstream_jwt_bearer_failed';
  return 'oauth_token_failed';
}

/**
 * A failure of one OAuth request as a `GatewayError`: the guarded client's
 * own errors pass unchanged; a server's error reply keeps only its RFC code
 * and HTTP status. `sentResource` says whether the request named a
 * `resource`, so a refusal of it offers the per-connection switch.
 */
export async function oauthFailure(
  error: unknown,
  step: OAuthStep,
  sentResource: boolean,
): Promise<Error> {
  if (error instanceof GatewayError || error instanceof TypeError) return error;
  const reply = await errorReplyOf(error);
  if (reply) {
    const oauthError = rfcErrorCode(reply.error);
    const detail = { step, oauthError, status: reply.status };
    if (sentResource && refusesResource(oauthError, reply.description))
      return new GatewayError(
        'oauth_resource_refused',
        `the authorization server refused the resource parameter in the ${step} (${oauthError}); turn off sending it for this connection (send_resource: false) and sign in again`,
        { field: 'send_resource', detail: { ...detail, switch: 'send_resource' } },
      );
    const code: ReasonCode =
      step === 'refresh' &&
      (oauthError === 'invalid_grant' ||
        oauthError === 'invalid_client' ||
        oauthError === 'unauthorized_client')
        ? 'oauth_sign_in_required'
        : failedCode(step);
    return new GatewayError(
      code,
      `the authorization server refused the ${step}: ${oauthError} (HTTP ${reply.status})`,
      { detail },
    );
  }
  const reason = error instanceof oauth.OperationProcessingError ? error.code : undefined;
  return new GatewayError(
    failedCode(step),
    `the authorization server's ${step} reply is not one Portcullis can use (${libraryReason(reason)})`,
    { detail: { step, reason: libraryReason(reason) } },
  );
}

/**
 * The error an authorization server replied with: the body of a JSON error
 * reply, or, for a 401 with a `WWW-Authenticate` challenge (which the
 * library reports before reading the body), the challenge's `error` or the
 * body's.
 */
async function errorReplyOf(
  error: unknown,
): Promise<{ error: unknown; description: string | undefined; status: number } | undefined> {
  if (error instanceof oauth.ResponseBodyError)
    return { error: error.error, description: error.error_description, status: error.status };
  if (!(error instanceof oauth.WWWAuthenticateChallengeError)) return undefined;
  const challenged = error.cause.find((c) => typeof c.parameters.error === 'string');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = await error.response.clone().json();
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // No JSON body: the challenge is all there is.
  }
  return {
    error: challenged?.parameters.error ?? body.error,
    description:
      challenged?.parameters.error_description ??
      (typeof body.error_description === 'string' ? body.error_description : undefined),
    status: error.status,
  };
}

/**
 * Whether an error reply refuses `resource`: RFC 8707's `invalid_target`,
 * or an `invalid_request` whose description names the parameter (Entra's
 * AADSTS9010010 and the like). The description only picks the code; it is
 * never shown.
 */
function refusesResource(oauthError: string, description: string | undefined): boolean {
  if (oauthError === 'invalid_target') return true;
  return oauthError === 'invalid_request' && /\bresource\b/i.test(description ?? '');
}

/** The library's reason code (`OAUTH_INVALID_RESPONSE`, ...) in lower case, from a closed shape. */
function libraryReason(reason: string | undefined): string {
  return reason !== undefined && /^OAUTH_[A-Z_]{1,60}$/.test(reason)
    ? reason.slice('OAUTH_'.length).toLowerCase()
    : 'unreadable';
}
