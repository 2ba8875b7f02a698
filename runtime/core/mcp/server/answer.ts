/**
 * A method's answer as the era writes it: a JSON-RPC error from the one
 * reason table, or a result that, on the modern wire, says it is complete
 * and who served it.
 */

import type { ReasonCode } from '../../base/errors.ts';
import { rpcErrorOf } from '../wire/http-exchange.ts';
import type { JsonRpcId, OutgoingMessage } from '../wire/json-rpc.ts';
import { SERVER_INFO_META_KEY } from '../wire/spec-names.ts';
import type { StepUp } from './pending-reply.ts';
import type { RequestScope } from './request-scope.ts';
import type { McpPrincipal } from './tool-backend.ts';

/** A reply message, and the reason code when it is an error (the modern wire's HTTP status). */
export interface Answer {
  message: OutgoingMessage;
  reason?: ReasonCode;
  /** A refusal the client can step up from: HTTP 403, unless the reply is already a stream, which then ends with `message`. */
  stepUp?: StepUp;
}

export function failure(
  id: JsonRpcId,
  reason: ReasonCode,
  message?: string,
  data?: unknown,
): Answer {
  return {
    message: rpcErrorOf(reason, {
      id,
      ...(message === undefined ? {} : { message }),
      ...(data === undefined ? {} : { data }),
    }),
    reason,
  };
}

/** A result as the era writes it: modern results say they are complete and who served them. */
export function complete<P extends McpPrincipal>(scope: RequestScope<P>, result: object): object {
  if (scope.era === 'legacy') return result;
  // Copied member by member (a spread of an object of unknown shape is slow on this path).
  const written: Record<string, unknown> = { resultType: 'complete' };
  const members = result as Record<string, unknown>;
  for (const key in members) written[key] = members[key];
  const meta = members._meta as Record<string, unknown> | undefined;
  written._meta =
    meta === undefined ? scope.serverMeta : { ...meta, [SERVER_INFO_META_KEY]: scope.serverInfo };
  return written;
}
