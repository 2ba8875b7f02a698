/**
 * The runtime's one error model: `GatewayError` with a stable reason code from
 * a closed set, and one table that says, per code, which HTTP status an API
 * answers with, whether the message may be shown to the caller, and whether
 * it is a refusal of the request itself (its caller, its input or the
 * governance decision: audited as `denied`) rather than something that
 * happened on the way to the provider. Handlers never derive a status
 * themselves. Messages never hold a secret, a token or a credential-bearing URL.
 */

export const REASONS = {
  // Input an operator or an agent sent.
  invalid_input: { status: 400, expose: true, refusal: true },
  /** A request body over the route's limit. */
  payload_too_large: { status: 413, expose: true, refusal: true },
  arguments_invalid: { status: 400, expose: true, refusal: true },
  server_variable_refused: { status: 400, expose: true, refusal: true },
  path_parameter_refused: { status: 400, expose: true, refusal: true },
  header_refused: { status: 400, expose: true, refusal: true },
  not_found: { status: 404, expose: true, refusal: true },
  conflict: { status: 409, expose: true, refusal: true },

  // Who is calling.
  unauthenticated: { status: 401, expose: true, refusal: true },

  // The decision on a tool call.
  tool_unknown: { status: 404, expose: true, refusal: true },
  not_granted: { status: 403, expose: true, refusal: true },
  action_disabled: { status: 403, expose: true, refusal: true },
  action_quarantined: { status: 403, expose: true, refusal: true },
  action_retired: { status: 403, expose: true, refusal: true },
  contract_changed: { status: 403, expose: true, refusal: true },
  connection_inactive: { status: 409, expose: true, refusal: true },
  credential_missing: { status: 409, expose: true, refusal: true },

  // Provider verification when connecting.
  verify_failed: { status: 422, expose: true, refusal: false },

  // The outbound request and the provider's reply.
  host_not_allowed: { status: 403, expose: true, refusal: true },
  upstream_address_refused: { status: 502, expose: true, refusal: false },
  upstream_unreachable: { status: 502, expose: true, refusal: false },
  upstream_timeout: { status: 504, expose: true, refusal: false },
  upstream_deadline_exceeded: { status: 504, expose: true, refusal: false },
  write_outcome_unknown: { status: 504, expose: true, refusal: false },
  upstream_reply_too_large: { status: 502, expose: true, refusal: false },
  upstream_redirect_refused: { status: 502, expose: true, refusal: false },
  upstream_status: { status: 502, expose: true, refusal: false },
  upstream_reply_invalid: { status: 502, expose: true, refusal: false },

  // Ours.
  /** The store is not open yet (a start in progress) or does not answer. */
  store_unavailable: { status: 503, expose: true, refusal: false },
  vault_unavailable: { status: 500, expose: false, refusal: false },
  internal: { status: 500, expose: false, refusal: false },
} as const satisfies Record<string, { status: number; expose: boolean; refusal: boolean }>;

export type ReasonCode = keyof typeof REASONS;

export interface GatewayErrorOptions {
  /** The field to change: a JSON pointer into the arguments, a flag, or a body property. */
  field?: string;
  /** Structured detail that is safe to show (never a secret). */
  detail?: Record<string, unknown>;
  cause?: unknown;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: ReasonCode;
  readonly field: string | undefined;
  readonly detail: Record<string, unknown> | undefined;

  constructor(code: ReasonCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.detail = options.detail;
  }

  get status(): number {
    return REASONS[this.code].status;
  }
}

/** What an API reply or an MCP result may say about an error: never an internal message. */
export interface PublicError {
  code: ReasonCode;
  message: string;
  field?: string;
  detail?: Record<string, unknown>;
}

export function publicError(error: unknown): PublicError {
  if (error instanceof GatewayError && REASONS[error.code].expose) {
    return {
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.detail === undefined ? {} : { detail: error.detail }),
    };
  }
  return {
    code: error instanceof GatewayError ? error.code : 'internal',
    message: 'internal error',
  };
}

export function statusOf(error: unknown): number {
  return error instanceof GatewayError ? error.status : 500;
}
