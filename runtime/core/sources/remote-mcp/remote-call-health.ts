/**
 * What a failed remote call says about its connection (seed 003): the
 * server's status errors, JSON-RPC errors and the network's failures count
 * against health; a reply that is too large, not JSON, or not an answer to
 * the request is about that one reply, and only forgets the caller's
 * session; a cancelled call, and what one caller's own credential brings on
 * (the server refusing an agent's personal key with 401 or 403), say
 * nothing about the connection the others share.
 */
import { GatewayError } from '../../base/errors.ts';
import type { CallOutcome } from '../connection-health.ts';
import type { ExecuteCall } from '../executor.ts';

/** Codes about one reply, not the connection: they change nothing but the caller's session. */
const CALL_ONLY = new Set([
  'mcp_remote_response_too_large',
  'mcp_remote_malformed_response',
  'mcp_remote_invalid_json',
]);

const HEALTH_FAILURES = new Set([
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_deadline_exceeded',
  'write_outcome_unknown',
  'upstream_address_refused',
  'mcp_remote_status',
  'mcp_remote_error',
  'mcp_remote_session_expired',
]);

/** Whether `error` is about one reply only (the caller's session is forgotten, health left alone). */
export function isReplyOnly(error: unknown): boolean {
  return error instanceof GatewayError && CALL_ONLY.has(error.code);
}

export function remoteCallOutcome(
  error: unknown,
  call?: Pick<ExecuteCall, 'credentialOwner'>,
): CallOutcome {
  if (!(error instanceof GatewayError)) return 'neutral';
  if (error.detail?.cancelled === true || isCancelled(error)) return 'neutral';
  if (call?.credentialOwner && isRefusal(error)) return 'neutral';
  return HEALTH_FAILURES.has(error.code) ? 'failure' : 'neutral';
}

/** The server refused the credential (HTTP 401 or 403). */
function isRefusal(error: GatewayError): boolean {
  const status = error.detail?.status;
  return error.code === 'mcp_remote_status' && (status === 401 || status === 403);
}

function isCancelled(error: GatewayError): boolean {
  const cause = error.cause instanceof GatewayError ? error.cause : error;
  return cause.detail?.cause === 'aborted';
}
