/**
 * An agent's person must sign in before its call can go on: when the
 * agent's client declared URL-mode elicitation (2025-11-25
 * `elicitation: { url: {} }`; 2026-07-28 the same as an input request), the
 * call asks it to open the sign-in link (`elicitation/create`, mode `url`)
 * and runs again once the client answers; a client that did not declare it,
 * or one that already answered and still has no sign-in, gets the error
 * itself (`isError`, the link in its text and `detail.signInUrl`).
 */
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { GatewayError } from '../../base/errors.ts';
import type { JsonValue } from '../../base/json-value.ts';
import type { Execution } from '../executor.ts';

/** The key the sign-in request goes under in the call's input requests. */
export const SIGN_IN_INPUT = 'upstream_sign_in';

export function signInElicitation(
  error: unknown,
  call: {
    clientCapabilities: ClientCapabilities;
    input: { responses: Record<string, unknown>; state: JsonValue | undefined } | undefined;
  },
  host: string,
): Execution | undefined {
  if (!(error instanceof GatewayError) || error.code !== 'oauth_sign_in_required') return undefined;
  const url = error.detail?.signInUrl;
  if (typeof url !== 'string') return undefined;
  const elicitation = call.clientCapabilities.elicitation as { url?: object } | undefined;
  if (elicitation?.url === undefined) return undefined;
  // Asked once: an answer without a sign-in gets the error with the link.
  if (call.input?.responses[SIGN_IN_INPUT] !== undefined) return undefined;
  return {
    outcome: {
      resultType: 'input_required',
      inputRequests: {
        [SIGN_IN_INPUT]: {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            elicitationId: new URL(url).searchParams.get('state')?.slice(0, 16) ?? 'sign-in',
            url,
            message: error.message,
          },
        },
      },
    },
    host,
    address: null,
    upstreamStatus: null,
    requestBytes: 0,
    replyBytes: 0,
    health: 'neutral',
  };
}
