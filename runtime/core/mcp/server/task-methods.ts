/**
 * The tasks extension's methods on both wires: `tasks/get` (the task's
 * state, its result inlined once done), `tasks/update` (answers to what the
 * task asks) and `tasks/cancel`, each acknowledged with an empty result. A
 * client that did not declare the extension is refused (-32021, naming it);
 * the backend decides everything about the task itself. Every result says
 * `resultType: "complete"` (the extension's rule, on either wire).
 */
import { Cancellation } from '../../base/cancellation.ts';
import { GatewayError, isOperatorsToSee, publicError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { legacyInputRequests, modernInputRequests } from '../wire/input-request-eras.ts';
import { type JsonRpcId, resultMessage } from '../wire/json-rpc.ts';
import { metaOf, traceContextOf } from '../wire/request-meta.ts';
import { declaresTasks, type TaskMethod, type TaskState, tasksRequired } from '../wire/tasks.ts';
import { type Answer, failure } from './answer.ts';
import type { RequestScope } from './request-scope.ts';
import type { McpPrincipal, TaskRequest } from './tool-backend.ts';

/** Whether tasks are served to this request's client at all: by the backend, on a revision with extensions. */
export function servesTasks<P extends McpPrincipal>(scope: RequestScope<P>): boolean {
  return scope.backend.answerTask !== undefined && revisionHasExtensions(scope.protocolVersion);
}

/** 2025-11-25 brought `capabilities.extensions`; 2026-07-28 declares them per request. */
export function revisionHasExtensions(protocolVersion: string): boolean {
  return protocolVersion >= '2025-11-25';
}

export async function answerTaskMethod<P extends McpPrincipal>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  method: TaskMethod,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  if (!declaresTasks(scope.clientCapabilities)) {
    return failure(
      id,
      'client_capability_missing',
      'the client did not declare the io.modelcontextprotocol/tasks extension, which tasks/* needs',
      tasksRequired(),
    );
  }
  const taskId = params?.taskId;
  if (typeof taskId !== 'string' || taskId === '')
    return failure(id, 'invalid_params', 'Invalid params: taskId must be a string');
  const cancellation = new Cancellation();
  const request: TaskRequest = {
    method,
    era: scope.era,
    protocolVersion: scope.protocolVersion,
    clientCapabilities: scope.clientCapabilities,
    trace: traceContextOf(metaOf(params)),
    span: scope.span,
    taskId,
    cancel: cancellation,
  };
  if (method === 'tasks/update') {
    const responses = params?.inputResponses;
    if (!isPlainObject(responses) || !Object.values(responses).every(isPlainObject))
      return failure(
        id,
        'invalid_params',
        'Invalid params: inputResponses must map each input key to its result object',
        { field: 'params.inputResponses' },
      );
    request.inputResponses = responses as Record<string, Record<string, unknown>>;
  }
  scope.cancelOnDisconnect?.(cancellation);
  try {
    const state = await scope.backend.answerTask!(scope.principal, request);
    if (method !== 'tasks/get') return { message: resultMessage(id, written(scope, {})) };
    if (state === undefined)
      throw new GatewayError('internal', 'a backend answered tasks/get with no task');
    return { message: resultMessage(id, written(scope, stateAsWritten(scope, state))) };
  } catch (error) {
    if (!(error instanceof GatewayError)) {
      scope.report(error);
      return failure(id, 'internal');
    }
    if (isOperatorsToSee(error)) scope.report(error);
    const shown = publicError(error);
    return failure(id, error.code, shown.message, { error: shown });
  }
}

/** A task's state for the client's wire: its input requests in that wire's shape. */
function stateAsWritten<P extends McpPrincipal>(
  scope: RequestScope<P>,
  state: TaskState,
): Record<string, unknown> {
  if (state.inputRequests === undefined) return { ...state };
  const inputRequests =
    scope.era === 'modern'
      ? modernInputRequests(state.inputRequests)
      : legacyInputRequests(state.inputRequests);
  return { ...state, inputRequests };
}

/** `resultType: "complete"` on either wire; on the modern one, who served it. */
function written<P extends McpPrincipal>(
  scope: RequestScope<P>,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result, resultType: 'complete' };
  if (scope.era === 'modern') out._meta = scope.serverMeta;
  return out;
}
