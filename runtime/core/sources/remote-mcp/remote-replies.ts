/**
 * What a remote server's reply to a forwarded request becomes: a result
 * checked for its method's shape (a tools/call result must have content), a
 * 2026-07-28 server's own question relayed as it is; and what a call keeps
 * in its sealed state between rounds of a question. A reply of the wrong
 * shape is `mcp_remote_malformed_response`.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { InputRequired } from '../../mcp/server/tool-backend.ts';
import { isClientRequest } from '../../mcp/wire/client-capability.ts';
import { type TaskState, taskEnvelopeOf, taskStateOf } from '../../mcp/wire/tasks.ts';

/**
 * The result of `method`, checked where its shape is checked here; the
 * others reach their callers as they are. A task (`resultType: "task"`) is
 * a tools/call's only, read as the extension has it (its id the server's,
 * for the caller to make its own).
 */
export function checkedResult(
  method: string,
  result: Record<string, unknown>,
): Record<string, unknown> | InputRequired {
  if (result.resultType === 'input_required') return inputRequiredOf(result);
  if (result.resultType === 'task') {
    if (method !== 'tools/call')
      throw new GatewayError(
        'mcp_remote_malformed_response',
        `the remote MCP server answered ${method} with a task, which only tools/call may be`,
      );
    return { ...taskEnvelopeOf(result) };
  }
  return RESULT_SHAPES[method]?.(result) ?? result;
}

/**
 * A server's answer to `tasks/get`, read as the extension has it, with its
 * inlined result checked as a tools/call's result is.
 */
export function checkedTaskState(result: Record<string, unknown>): TaskState {
  const state = taskStateOf(result);
  if (state.result !== undefined) state.result = toolResultOf(state.result);
  return state;
}

/** A 2026-07-28 server's own question for the agent, relayed as it is. */
function inputRequiredOf(result: Record<string, unknown>): InputRequired {
  const requests = result.inputRequests;
  const state = result.requestState;
  if (requests !== undefined && !isPlainObject(requests))
    throw new GatewayError(
      'mcp_remote_malformed_response',
      "the remote MCP server's input_required result has inputRequests that are not an object",
    );
  for (const request of Object.values(requests ?? {})) {
    if (!isPlainObject(request) || !isClientRequest(String(request.method)))
      throw new GatewayError(
        'mcp_remote_malformed_response',
        "the remote MCP server's input_required result asks for input Portcullis cannot relay",
      );
  }
  if (state !== undefined && typeof state !== 'string')
    throw new GatewayError(
      'mcp_remote_malformed_response',
      "the remote MCP server's requestState is not a string",
    );
  const outcome: InputRequired = {
    resultType: 'input_required',
    // Sealed by the endpoint with the agent's answers' retry; given back to the server unchanged.
    state: { modern: state ?? true },
  };
  if (requests !== undefined) outcome.inputRequests = requests as InputRequired['inputRequests'];
  return outcome;
}

/** The results whose shape is checked here, by method. */
const RESULT_SHAPES: Partial<
  Record<string, (result: Record<string, unknown>) => Record<string, unknown>>
> = {
  'tools/call': toolResultOf,
};

function toolResultOf(result: Record<string, unknown>): CallToolResult & Record<string, unknown> {
  if (!Array.isArray(result.content))
    throw new GatewayError(
      'mcp_remote_malformed_response',
      "the remote MCP server's tools/call result has no content array",
    );
  const outcome: CallToolResult = { content: result.content as CallToolResult['content'] };
  if (isPlainObject(result.structuredContent)) outcome.structuredContent = result.structuredContent;
  if (result.isError === true) outcome.isError = true;
  return outcome;
}

/** What a forwarded call keeps in its sealed state between rounds. */
export interface RelayState {
  /** A held exchange's id, and the key its question went out under. */
  held?: string;
  key?: string;
  /** A 2026-07-28 server's `requestState` (true: it sent none). */
  modern?: string | true;
}

export function relayStateOf(state: unknown): RelayState | undefined {
  if (!isPlainObject(state)) return undefined;
  const { held, key, modern } = state;
  const relay: RelayState = {};
  if (typeof held === 'string') relay.held = held;
  if (typeof key === 'string') relay.key = key;
  if (typeof modern === 'string' || modern === true) relay.modern = modern;
  return relay;
}
