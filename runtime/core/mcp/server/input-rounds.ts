/**
 * Requests that may need input from the client before they complete
 * (2026-07-28 multi round-trip requests): on the modern wire the request
 * answers `input_required` and its retry brings the answers with the sealed
 * state; on a legacy session the client is asked on the reply stream and the
 * request runs again with its answers. Also what every such request can say
 * on its way: progress and log messages.
 */
import type { ClientCapabilities, InputRequest } from '@modelcontextprotocol/server';
import { Cancellation } from '../../base/cancellation.ts';
import { GatewayError, isOperatorsToSee, publicError, type ReasonCode } from '../../base/errors.ts';
import { isPlainObject, type JsonValue } from '../../base/json-value.ts';
import { isClientRequest, missingCapability } from '../wire/client-capability.ts';
import { legacyInputRequests, modernInputRequests } from '../wire/input-request-eras.ts';
import { type JsonRpcId, notificationMessage, resultMessage } from '../wire/json-rpc.ts';
import {
  logLevelWanted,
  metaOf,
  type ProgressToken,
  progressTokenOf,
  traceContextOf,
} from '../wire/request-meta.ts';
import { declaresTasks, isTaskStarted, type TaskStarted } from '../wire/tasks.ts';
import { type Answer, complete, failure } from './answer.ts';
import type { PendingReply } from './pending-reply.ts';
import type { RequestScope } from './request-scope.ts';
import type { RequestStateBinding } from './request-state.ts';
import {
  type InputRequired,
  isInputRequired,
  type McpPrincipal,
  type RequestContext,
} from './tool-backend.ts';

/** Rounds of input one call may ask for on a legacy session before it is refused. */
const MAX_INPUT_ROUNDS = 8;

export interface Invocation<R> {
  run(context: RequestContext): Promise<R | InputRequired>;
  /** How a `GatewayError` becomes a result, when it does (tool calls); otherwise it is a JSON-RPC error. */
  refused?: (error: GatewayError) => object;
  /**
   * The `WWW-Authenticate` challenge of a refusal the client can step up from
   * (`insufficient_scope`): answered as HTTP 403 with it, as MCP's
   * authorization says, while nothing of the reply was streamed yet.
   */
  stepUp?: (error: GatewayError) => string | undefined;
  /** The reason a `GatewayError` is answered with (the era's own resource-not-found). */
  translate?: (error: GatewayError) => ReasonCode;
}

/**
 * Runs a request that may need input from the client (2026-07-28 MRTR):
 * modern, it answers `input_required` and a retry brings the answers and the
 * sealed state; legacy, the client is asked on the reply stream and the
 * request runs again with its answers, until it completes.
 */
export async function withInput<P extends McpPrincipal, R extends object>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  binding: Omit<RequestStateBinding, 'principal'>,
  invocation: Invocation<R>,
): Promise<Answer> {
  const meta = metaOf(params);
  const cancellation = new Cancellation();
  let input: RequestContext['input'];
  // Only a modern retry brings answers and state (a legacy client answers on the reply stream).
  if (
    scope.era === 'modern' &&
    (params?.inputResponses !== undefined || params?.requestState !== undefined)
  ) {
    try {
      input = await modernInput(scope, binding, params);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      // A refused retry of a tool call leaves its audit event too.
      if (binding.method === 'tools/call') {
        const refused = {
          name: binding.name,
          arguments: binding.arguments,
          trace: traceContextOf(meta),
          span: scope.span,
        };
        await scope.backend
          .recordRefusedCall?.(scope.principal, refused, error.code)
          .catch(scope.report);
      }
      return failure(id, error.code, error.message);
    }
  }
  // Literals, not spreads: this runs on every call.
  let context: RequestContext = {
    era: scope.era,
    protocolVersion: scope.protocolVersion,
    clientCapabilities: scope.clientCapabilities,
    cancel: cancellation,
    progress: progressReporter(scope.reply, progressTokenOf(meta)),
    log: logger(scope),
    trace: traceContextOf(meta),
    span: scope.span,
    input,
  };

  scope.cancelOnDisconnect?.(cancellation);
  scope.running?.set(id, cancellation);
  try {
    let outcome = await invocation.run(context);
    for (let round = 1; isInputRequired(outcome); round++) {
      if (scope.era === 'modern') {
        return { message: resultMessage(id, await inputRequiredResult(scope, binding, outcome)) };
      }
      // Legacy: ask the client on the reply stream, then run again with its answers.
      if (scope.askClient === undefined || round > MAX_INPUT_ROUNDS) {
        throw new GatewayError(
          'invalid_request',
          'this request needs input the client cannot give',
        );
      }
      requireCapabilities(scope.clientCapabilities, outcome.inputRequests);
      const responses = await scope.askClient(
        legacyInputRequests(outcome.inputRequests ?? {}),
        cancellation,
      );
      context = { ...context, input: { responses, state: outcome.state } };
      outcome = await invocation.run(context);
    }
    if (isTaskStarted(outcome)) return { message: resultMessage(id, taskResult(scope, outcome)) };
    return { message: resultMessage(id, complete(scope, outcome)) };
  } catch (error) {
    if (!(error instanceof GatewayError)) {
      scope.report(error);
      return failure(id, 'internal');
    }
    if (isOperatorsToSee(error)) scope.report(error);
    const shown = publicError(error);
    if (invocation.refused && error.code !== 'client_capability_missing') {
      const message = resultMessage(id, complete(scope, invocation.refused(error)));
      const challenge = invocation.stepUp?.(error);
      if (challenge === undefined) return { message };
      const refusal = failure(id, error.code, shown.message, { error: shown }).message;
      return { message, stepUp: { challenge, refusal } };
    }
    return failure(id, invocation.translate?.(error) ?? error.code, shown.message, error.detail);
  } finally {
    if (scope.running?.get(id) === cancellation) scope.running.delete(id);
  }
}

/**
 * A request answered with a task (`resultType: "task"`, on either wire), to
 * a client that declared the extension on it; a backend that starts one for
 * any other client is broken, and the client is told nothing more.
 */
function taskResult<P extends McpPrincipal>(
  scope: RequestScope<P>,
  started: TaskStarted,
): Record<string, unknown> {
  if (!declaresTasks(scope.clientCapabilities))
    throw new GatewayError('internal', 'a backend answered with a task a client did not ask for');
  const result: Record<string, unknown> = { ...started };
  if (scope.era === 'modern') result._meta = scope.serverMeta;
  return result;
}

/** A modern retry's answers and state (the state checked against this request). */
async function modernInput<P extends McpPrincipal>(
  scope: RequestScope<P>,
  binding: Omit<RequestStateBinding, 'principal'>,
  params: Record<string, unknown> | undefined,
): Promise<RequestContext['input']> {
  const responses = params?.inputResponses;
  const sealed = params?.requestState;
  if (
    responses !== undefined &&
    !(isPlainObject(responses) && Object.values(responses).every(isPlainObject))
  ) {
    throw new GatewayError(
      'invalid_params',
      'Invalid params: inputResponses must map each request key to its result object',
      { field: 'params.inputResponses' },
    );
  }
  if (sealed !== undefined && typeof sealed !== 'string') {
    throw new GatewayError('request_state_invalid', undefined, { field: 'params.requestState' });
  }
  const state =
    sealed === undefined
      ? undefined
      : await scope.sealer.open(sealed, { principal: scope.principal, ...binding });
  return { responses: responses ?? {}, state };
}

async function inputRequiredResult<P extends McpPrincipal>(
  scope: RequestScope<P>,
  binding: Omit<RequestStateBinding, 'principal'>,
  outcome: InputRequired,
): Promise<Record<string, unknown>> {
  requireCapabilities(scope.clientCapabilities, outcome.inputRequests);
  const result: Record<string, unknown> = { resultType: 'input_required' };
  if (outcome.inputRequests !== undefined)
    result.inputRequests = modernInputRequests(outcome.inputRequests);
  // A result must carry requests or state; state is what binds the retry to this request.
  if (outcome.state !== undefined || outcome.inputRequests === undefined) {
    result.requestState = await scope.sealer.seal(outcome.state, {
      principal: scope.principal,
      ...binding,
    });
  }
  result._meta = scope.serverMeta;
  return result;
}

/** Input the client did not say it can give is refused, never asked for (MRTR server requirements). */
function requireCapabilities(
  declared: ClientCapabilities,
  requests: Record<string, InputRequest> | undefined,
): void {
  const missing: Record<string, Record<string, object>> = {};
  for (const request of Object.values(requests ?? {})) {
    if (!isClientRequest(request.method)) {
      throw new GatewayError('internal', `a backend asked for input with ${request.method}`);
    }
    const lacking = missingCapability(declared, request);
    if (lacking === undefined) continue;
    const [capability, mode] = lacking.split('.') as [string, string | undefined];
    missing[capability] = { ...missing[capability], ...(mode === undefined ? {} : { [mode]: {} }) };
  }
  if (Object.keys(missing).length > 0) {
    throw new GatewayError(
      'client_capability_missing',
      `the client did not declare ${describe(missing)}, which this call needs`,
      { detail: { requiredCapabilities: missing } },
    );
  }
}

/** `elicitation.url, sampling`: what is missing, as capability paths. */
function describe(missing: Record<string, Record<string, object>>): string {
  return Object.entries(missing)
    .flatMap(([capability, modes]) =>
      Object.keys(modes).length === 0
        ? [capability]
        : Object.keys(modes).map((mode) => `${capability}.${mode}`),
    )
    .join(', ');
}

function progressReporter(
  reply: PendingReply,
  token: ProgressToken | undefined,
): RequestContext['progress'] {
  if (token === undefined) return () => {};
  let last = Number.NEGATIVE_INFINITY;
  return (progress, total, message) => {
    // Progress must increase with every notification.
    if (!(progress > last)) return;
    last = progress;
    reply.send(
      notificationMessage('notifications/progress', {
        progressToken: token,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      }),
    );
  };
}

function logger<P extends McpPrincipal>(scope: RequestScope<P>): RequestContext['log'] {
  return (level, data, name) => {
    if (!logLevelWanted(scope.logLevel, level)) return;
    scope.reply.send(
      notificationMessage('notifications/message', {
        level,
        data: data as JsonValue,
        ...(name === undefined ? {} : { logger: name }),
      }),
    );
  };
}
