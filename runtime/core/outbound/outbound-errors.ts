/**
 * Maps what went wrong on the wire to the gateway's reason codes. Every error
 * says whether the request may have reached the server (`detail.requestSent`),
 * so the executor can tell a write that surely did not happen from one whose
 * outcome is unknown. Nothing here carries headers, bodies or unredacted URLs.
 */
import { errors as undiciErrors } from 'undici';
import { GatewayError, type ReasonCode } from '../base/errors.ts';
import { AddressRefusedError } from './address-policy.ts';
import type { Redactor } from './redaction.ts';

/** What every outbound `GatewayError` carries in `detail` (all safe to show). */
export interface OutboundErrorDetail {
  host: string;
  /** Where the exchange was when it failed. */
  phase: 'connect' | 'reply';
  /** True when the request may have reached the server: a write's outcome is then unknown. */
  requestSent: boolean;
  /** The low-level code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, `aborted`, ...). */
  cause?: string;
  /** The byte cap, on `upstream_reply_too_large`. */
  limit?: number;
  /** The refused address range, on `upstream_address_refused`. */
  range?: string;
}

export interface FailureContext {
  method: string;
  url: URL;
  /** What keeps the request's secrets out of every error. */
  redactor: Redactor;
  /** Whether a connection was handed the request (bytes may have gone out). */
  requestSent: boolean;
}

export function outboundError(
  code: ReasonCode,
  what: string,
  context: FailureContext,
  detail: Omit<OutboundErrorDetail, 'host'>,
  cause?: unknown,
): GatewayError {
  const { redactor } = context;
  return new GatewayError(code, `${context.method} ${redactor.url(context.url)}: ${what}`, {
    detail: redactor.detail({ host: context.url.host, ...detail }),
    ...(cause === undefined ? {} : { cause: redactedCause(cause, redactor) }),
  });
}

/** The exchange's total deadline passed, wherever it was. */
export function deadlineExceeded(context: FailureContext, deadlineMs: number): GatewayError {
  const sent = context.requestSent;
  return outboundError(
    'upstream_deadline_exceeded',
    `no complete reply within the ${deadlineMs} ms deadline`,
    context,
    { phase: sent ? 'reply' : 'connect', requestSent: sent, cause: 'deadline' },
  );
}

/** The reply's head, or its next chunk, did not come within the reply timeout. */
export function replyTimedOut(
  context: FailureContext,
  code = 'UND_ERR_BODY_TIMEOUT',
  cause?: unknown,
): GatewayError {
  return outboundError(
    'upstream_timeout',
    'the reply did not arrive within the reply timeout',
    context,
    { phase: 'reply', requestSent: true, cause: code },
    cause,
  );
}

/** The reply (declared or as it arrived) is over the byte cap. */
export function replyTooLarge(context: FailureContext, limit: number): GatewayError {
  return outboundError(
    'upstream_reply_too_large',
    `the reply is larger than ${limit} bytes`,
    context,
    {
      limit,
      phase: 'reply',
      requestSent: true,
    },
  );
}

/** Turns any failure of one exchange into a `GatewayError` (or a `TypeError` for caller misuse). */
export function classifyFailure(error: unknown, context: FailureContext): Error {
  if (error instanceof GatewayError) return error;
  const code = errorCode(error);
  const sent = context.requestSent;

  if (error instanceof AddressRefusedError)
    return outboundError(
      'upstream_address_refused',
      error.message,
      context,
      { range: error.range, phase: 'connect', requestSent: false },
      undefined,
    );
  if (code === 'UND_ERR_INVALID_ARG')
    return new TypeError(
      `outbound request refused by the HTTP layer: ${context.redactor.text(messageOf(error))}`,
    );
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return outboundError(
      'upstream_timeout',
      'no connection within the connect timeout',
      context,
      { phase: 'connect', requestSent: false, cause: code },
      error,
    );
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return replyTimedOut(context, code, error);
  if (!sent)
    return outboundError(
      'upstream_unreachable',
      `could not connect (${code ?? 'connection failed'})`,
      context,
      { phase: 'connect', requestSent: false, cause: code ?? 'connect_failed' },
      error,
    );
  if (isMalformedReply(error, code))
    return outboundError(
      'upstream_reply_invalid',
      'the reply is not valid HTTP',
      context,
      { phase: 'reply', requestSent: true, cause: code ?? 'http_parse_failed' },
      error,
    );
  return outboundError(
    'upstream_unreachable',
    `the connection failed after the request was sent (${code ?? 'connection lost'})`,
    context,
    { phase: 'reply', requestSent: sent, cause: code ?? 'connection_lost' },
    error,
  );
}

/**
 * The reply broke HTTP itself: undici's parser refused it (an `HTTPParserError`,
 * which carries no `code` for most parser failures), its framing contradicts
 * itself (two lengths, a length and chunking), or its headers overflow.
 */
function isMalformedReply(error: unknown, code: string | undefined): boolean {
  return (
    error instanceof undiciErrors.HTTPParserError ||
    code?.startsWith('HPE_') === true ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    code === 'UND_ERR_HEADERS_OVERFLOW'
  );
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A cause safe to log: the original's name, code and redacted message, nothing it referenced. */
function redactedCause(cause: unknown, redactor: Redactor): Error {
  const copy = new Error(redactor.text(messageOf(cause)));
  copy.name = cause instanceof Error ? cause.name : 'Error';
  const code = errorCode(cause);
  if (code !== undefined) Object.assign(copy, { code });
  return copy;
}
