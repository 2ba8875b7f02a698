/**
 * The authorization server's own errors, with RFC 6749's (and RFC 7591's,
 * RFC 7009's) error strings: OAuth clients read `error`, so these endpoints
 * answer exactly what the RFCs say, not the gateway's reason codes. A
 * description never holds a code, a token, a password or a secret.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error'
  | 'temporarily_unavailable';

/**
 * Why the token endpoint refused a machine client or a JWT it presented
 * (client assertions, ID-JAGs): a stable code from this closed set, audited
 * as the refusal's subject (`invalid_grant:id_jag_audience`) beside the RFC's
 * string the client reads.
 */
export const TOKEN_REFUSALS = [
  'client_unknown',
  'client_secret_wrong',
  'client_auth_method',
  'assertion_invalid',
  'assertion_signature',
  'assertion_audience',
  'assertion_lifetime',
  'assertion_replayed',
  'keys_unavailable',
  'id_jag_issuer',
  'id_jag_invalid',
  'id_jag_type',
  'id_jag_signature',
  'id_jag_audience',
  'id_jag_resource',
  'id_jag_client',
  'id_jag_expired',
  'id_jag_replayed',
  'id_jag_workspace',
  'id_jag_scope',
] as const;
export type TokenRefusal = (typeof TOKEN_REFUSALS)[number];

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  // RFC 6749 §5.2: 401 when the client authenticated through a header; public clients do not.
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  unsupported_token_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  server_error: 500,
  temporarily_unavailable: 429,
};

export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  readonly error: OAuthErrorCode;
  /** `temporarily_unavailable`: the seconds to wait, as `Retry-After` says them (default 60). */
  readonly retryAfterSeconds: number | undefined;
  /** The token endpoint's own reason, audited (never sent: `error` and the description are). */
  readonly refusal: TokenRefusal | undefined;

  /** `description`: what to change, in words safe to show (RFC 6749 `error_description`). */
  constructor(
    error: OAuthErrorCode,
    description: string,
    options?: { cause?: unknown; retryAfterSeconds?: number; refusal?: TokenRefusal },
  ) {
    super(description, options?.cause === undefined ? undefined : { cause: options.cause });
    this.error = error;
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.refusal = options?.refusal;
  }

  get status(): number {
    return STATUS[this.error];
  }

  /** The JSON body of a token, registration or revocation error reply. */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}
