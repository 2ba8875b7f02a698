/**
 * The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663 as the
 * conformance suite 0.2.0-alpha.12 checks it), what both ends of the wire
 * share: the extension's name and how a client declares it, the task's
 * shape (`ttlMs`, `pollIntervalMs`; no `requestState`), the result a task
 * starts with (`resultType: "task"`, flat), and reading a task a peer sent.
 *
 * A server may answer `tools/call` with a task only to a client that
 * declared the extension on that request (2026-07-28: its `_meta`; a
 * 2025-11-25 session: its `initialize`); the client polls `tasks/get`
 * (the result is inlined once the task is done), answers its input with
 * `tasks/update` and asks to stop with `tasks/cancel`, each naming the task
 * in `Mcp-Name` (standard-headers.ts). `tasks/result` and `tasks/list` are
 * not part of it.
 */
import type { InputRequest } from '@modelcontextprotocol/server';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { isClientRequest } from './client-capability.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TASK_STATUSES: readonly TaskStatus[] = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
];

/** The methods of the extension, each naming its task in `params.taskId`. */
export type TaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel';

export function isTaskMethod(method: string): method is TaskMethod {
  return method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel';
}

/** A task's state as `tasks/get` reports it (the extension's `DetailedTask`). */
export interface TaskState {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the task is kept from its creation, in whole milliseconds; null: no limit. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** `completed`: the result of the request the task stands for (a tool result). */
  result?: Record<string, unknown>;
  /** `failed`: the JSON-RPC error the request failed with. */
  error?: { code: number; message: string; data?: unknown };
  /** `input_required`: what the task asks the client, by key (answered with `tasks/update`). */
  inputRequests?: Record<string, InputRequest>;
}

/** A tool call answered with a task: the `CreateTaskResult`, the task without result, error or input. */
export interface TaskStarted
  extends Pick<
    TaskState,
    | 'taskId'
    | 'status'
    | 'statusMessage'
    | 'createdAt'
    | 'lastUpdatedAt'
    | 'ttlMs'
    | 'pollIntervalMs'
  > {
  resultType: 'task';
}

export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Whether `capabilities` (a client's) declare the extension. */
export function declaresTasks(capabilities: unknown): boolean {
  return (
    isPlainObject(capabilities) &&
    isPlainObject(capabilities.extensions) &&
    isPlainObject(capabilities.extensions[TASKS_EXTENSION])
  );
}

/** `capabilities` with the extension declared too (what a client of the extension sends). */
export function withTasks(capabilities: Record<string, unknown>): Record<string, unknown> {
  const extensions = isPlainObject(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/** The `data` of a refusal for lack of the extension (-32021): what the client must declare. */
export function tasksRequired(): { requiredCapabilities: Record<string, unknown> } {
  return { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };
}

/** The result a task starts with: its state without result, error or input. */
export function taskStarted(state: TaskState): TaskStarted {
  const started: TaskStarted = {
    resultType: 'task',
    taskId: state.taskId,
    status: state.status,
    createdAt: state.createdAt,
    lastUpdatedAt: state.lastUpdatedAt,
    ttlMs: state.ttlMs,
  };
  if (state.statusMessage !== undefined) started.statusMessage = state.statusMessage;
  if (state.pollIntervalMs !== undefined) started.pollIntervalMs = state.pollIntervalMs;
  return started;
}

export function isTaskStarted(outcome: object): outcome is TaskStarted {
  return (outcome as { resultType?: unknown }).resultType === 'task';
}

/** Longest task id, status message and error message read from a peer. */
const MAX_ID = 1_024;
const MAX_MESSAGE = 2_000;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A task a peer sent (a `tasks/get` result), read field by field: anything
 * of the wrong shape is `mcp_remote_malformed_response`, and only the
 * extension's fields are kept (no `requestState`, no v1 `ttl`, no `_meta`).
 * A status message and an error's message are kept as the text they are,
 * cut short.
 */
export function taskStateOf(raw: Record<string, unknown>): TaskState {
  const { resultType: _, ...state }: TaskState & { resultType?: unknown } = taskEnvelopeOf(raw);
  if (state.status === 'completed') {
    if (!isPlainObject(raw.result)) throw malformed('is completed without a result');
    state.result = raw.result;
  }
  if (state.status === 'failed') {
    const error = raw.error;
    if (!isPlainObject(error) || typeof error.code !== 'number' || !Number.isInteger(error.code))
      throw malformed('failed without a JSON-RPC error');
    state.error = {
      code: error.code,
      message: typeof error.message === 'string' ? error.message.slice(0, MAX_MESSAGE) : '',
    };
  }
  if (state.status === 'input_required') {
    const requests = raw.inputRequests;
    if (!isPlainObject(requests)) throw malformed('asks for input without inputRequests');
    for (const request of Object.values(requests))
      if (!isPlainObject(request) || !isClientRequest(String(request.method)))
        throw malformed('asks for input Portcullis cannot relay');
    state.inputRequests = requests as Record<string, InputRequest>;
  }
  return state;
}

/** The task a peer started (a `CreateTaskResult`), read as `taskStateOf` reads one, without result, error or input. */
export function taskEnvelopeOf(raw: Record<string, unknown>): TaskStarted {
  const { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, statusMessage } = raw;
  if (typeof taskId !== 'string' || taskId === '' || taskId.length > MAX_ID)
    throw malformed('has no usable taskId');
  if (typeof status !== 'string' || !(TASK_STATUSES as readonly string[]).includes(status))
    throw malformed('has an unknown status');
  const started: TaskStarted = {
    resultType: 'task',
    taskId,
    status: status as TaskStatus,
    createdAt: isoOr(createdAt),
    lastUpdatedAt: isoOr(lastUpdatedAt),
    ttlMs: isWholePositive(ttlMs) ? ttlMs : null,
  };
  if (isWholePositive(pollIntervalMs)) started.pollIntervalMs = pollIntervalMs;
  if (typeof statusMessage === 'string')
    started.statusMessage = statusMessage.slice(0, MAX_MESSAGE);
  return started;
}

function isWholePositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** A peer's timestamp when it is one, else now (a task always says when). */
function isoOr(value: unknown): string {
  return typeof value === 'string' && value.length <= 40 && ISO_TIME.test(value)
    ? value
    : new Date().toISOString();
}

function malformed(what: string): GatewayError {
  return new GatewayError('mcp_remote_malformed_response', `the remote MCP server's task ${what}`);
}
