/**
 * Tasks whose state is a row in the store: the producer interface for work
 * Portcullis does itself while a client polls (a call held for approval, a
 * long job of a test fixture). The producer starts a task for the call in
 * progress, answers the call with what `start` gives it, and reports as it
 * goes; any replica answers `tasks/get` from the row, and a restart loses
 * nothing. In a few lines:
 *
 *   const { ref, started } = await tasks.start(owner, { purpose: 'approval', connectionId, action });
 *   return started;                              // the tool call's outcome: the task
 *   // later, on whichever replica:
 *   await tasks.complete(ref, result);           // completed, with the call's result
 *   await tasks.fail(ref, new GatewayError('approval_denied', 'ask …'));  // failed, with its code
 *
 * A terminal status never changes: of a `complete`, a `fail` and the
 * client's `tasks/cancel` only the first lands (the others answer false),
 * so a producer that finds its task cancelled does not do the work. The
 * client's cancellation and its answers to `askInput` are also told to the
 * purpose's reactions in the process that took the request (in-process work
 * may stop early, or go on with the answers); work running on another
 * replica reads the row instead.
 */
import type { CallToolResult, InputRequest } from '@modelcontextprotocol/server';
import { GatewayError, publicError, REASONS } from '../base/errors.ts';
import { isPlainObject } from '../base/json-value.ts';
import type { RpcErrorObject } from '../mcp/wire/json-rpc.ts';
import {
  type TaskMethod,
  type TaskStarted,
  type TaskState,
  taskStarted,
} from '../mcp/wire/tasks.ts';
import type { TaskChange, TaskRecord, TaskRecordStatus } from '../model/tasks.ts';
import type { TaskRows } from '../ports/store.ts';
import { TaskIds, type TaskOwner, type TaskTicket } from './task-ids.ts';

export interface TaskStart {
  /** What makes the task (`approval`, …): the key of the reactions told of its cancellation and answers. */
  purpose: string;
  /** The connection and the tool (as `/mcp` names it) of the call the task stands for. */
  connectionId: string;
  action: string;
  statusMessage?: string;
  /** How long the task is kept from now. Default an hour. */
  ttlMs?: number;
  /** How often the client should poll. Default a second. */
  pollIntervalMs?: number;
}

/** What a purpose's work hears of its tasks in this process. */
export interface TaskReactions {
  /** The client cancelled the task (already `cancelled` in the store). */
  cancelled?(task: TaskRecord): void;
  /** The client answered some of what the task asks (those keys are no longer asked). */
  answered?(task: TaskRecord, responses: Record<string, Record<string, unknown>>): void;
}

/** What of a `tasks/*` request a producer answers. */
export interface TaskAsk {
  method: TaskMethod;
  taskId: string;
  inputResponses?: Record<string, Record<string, unknown>>;
}

export interface RecordedTasksOptions {
  rows: TaskRows;
  ids: TaskIds;
  /** By purpose. */
  reactions?: Readonly<Record<string, TaskReactions>>;
  now?: () => Date;
}

const DEFAULT_TTL_MS = 3_600_000;
const DEFAULT_POLL_MS = 1_000;
const LIVE: readonly TaskRecordStatus[] = ['working', 'input_required'];

export class RecordedTasks {
  readonly #rows: TaskRows;
  readonly #ids: TaskIds;
  readonly #reactions: Readonly<Record<string, TaskReactions>>;
  readonly #now: () => Date;

  constructor(options: RecordedTasksOptions) {
    this.#rows = options.rows;
    this.#ids = options.ids;
    this.#reactions = options.reactions ?? {};
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * A new task for a call in progress, `working`, stored before this
   * resolves (a `tasks/get` right after finds it): its reference, and the
   * result the call answers with.
   */
  async start(owner: TaskOwner, start: TaskStart): Promise<{ ref: string; started: TaskStarted }> {
    const now = this.#now();
    const ttlMs = start.ttlMs ?? DEFAULT_TTL_MS;
    const record: TaskRecord = {
      ref: TaskIds.newRef(),
      purpose: start.purpose,
      workspaceId: owner.workspaceId,
      agentId: owner.agentId,
      connectionId: start.connectionId,
      action: start.action,
      status: 'working',
      statusMessage: start.statusMessage ?? null,
      result: null,
      error: null,
      inputRequests: null,
      pollIntervalMs: start.pollIntervalMs ?? DEFAULT_POLL_MS,
      createdAt: now.toISOString(),
      lastUpdatedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
      follows: null,
    };
    await this.#rows.create(record);
    const taskId = this.#ids.seal(owner, {
      kind: 'recorded',
      ref: record.ref,
      connectionId: start.connectionId,
      action: start.action,
      createdAt: now.getTime(),
      expiresAt: now.getTime() + ttlMs,
    });
    return { ref: record.ref, started: taskStarted(stateOf(record, taskId)) };
  }

  /** Back to `working` (or a new status message): false when the task is over or gone. */
  working(ref: string, statusMessage?: string): Promise<boolean> {
    return this.#change(ref, LIVE, {
      status: 'working',
      inputRequests: null,
      ...(statusMessage === undefined ? {} : { statusMessage }),
    });
  }

  /** `input_required`: the client answers `inputRequests` with `tasks/update` (heard by `answered`). */
  askInput(
    ref: string,
    inputRequests: Record<string, InputRequest>,
    statusMessage?: string,
  ): Promise<boolean> {
    return this.#change(ref, LIVE, {
      status: 'input_required',
      inputRequests: JSON.stringify(inputRequests),
      ...(statusMessage === undefined ? {} : { statusMessage }),
    });
  }

  /** `completed` with the call's result (a tool error too: `isError` in the result). */
  complete(ref: string, result: CallToolResult, statusMessage?: string): Promise<boolean> {
    return this.#change(ref, LIVE, {
      status: 'completed',
      result: JSON.stringify(result),
      inputRequests: null,
      ...(statusMessage === undefined ? {} : { statusMessage }),
    });
  }

  /**
   * From now on the task is the one the client knows as `taskId` (its
   * producer started it, a remote server's): its `tasks/*` requests are
   * that task's (`followed`). False when the task is over or gone.
   */
  follow(ref: string, taskId: string): Promise<boolean> {
    return this.#change(ref, LIVE, { status: 'working', inputRequests: null, follows: taskId });
  }

  /** The client's id of the task this one follows, if it follows one. */
  async followed(ref: string): Promise<string | undefined> {
    const record = await this.#rows.byRef(ref, this.#now().toISOString());
    return record?.follows ?? undefined;
  }

  /**
   * `failed` with a JSON-RPC error: a `GatewayError` becomes its code's
   * JSON-RPC code, its public message, and `data.error` with the reason code.
   */
  fail(
    ref: string,
    error: GatewayError | RpcErrorObject,
    statusMessage?: string,
  ): Promise<boolean> {
    const rpc = error instanceof GatewayError ? rpcErrorOf(error) : error;
    return this.#change(ref, LIVE, {
      status: 'failed',
      error: JSON.stringify(rpc),
      inputRequests: null,
      statusMessage: statusMessage ?? rpc.message,
    });
  }

  // What `tasks/*` reach, once the client's id is opened (and, in the gateway, the request decided).

  /** Answers a `tasks/*` request: the state for `tasks/get`, nothing for the others. */
  async answer(ticket: TaskTicket, request: TaskAsk): Promise<TaskState | undefined> {
    switch (request.method) {
      case 'tasks/get':
        return this.state(ticket, request.taskId);
      case 'tasks/update':
        await this.update(ticket, request.inputResponses ?? {});
        return undefined;
      case 'tasks/cancel':
        await this.cancel(ticket);
        return undefined;
    }
  }

  /** The task's state for `tasks/get`, under the id the client polls with. */
  async state(ticket: TaskTicket, taskId: string): Promise<TaskState> {
    return stateOf(await this.#live(ticket), taskId);
  }

  /**
   * `tasks/update`: the answers to keys the task asks now are taken (the
   * others ignored, as the extension says); once none is asked any more the
   * task is `working` again.
   */
  async update(
    ticket: TaskTicket,
    responses: Record<string, Record<string, unknown>>,
  ): Promise<void> {
    const record = await this.#live(ticket);
    if (record.status !== 'input_required' || record.inputRequests === null) return;
    const asked = JSON.parse(record.inputRequests) as Record<string, InputRequest>;
    const answered: Record<string, Record<string, unknown>> = {};
    const left: Record<string, InputRequest> = {};
    for (const [key, request] of Object.entries(asked)) {
      const response = responses[key];
      if (response !== undefined && Object.hasOwn(responses, key)) answered[key] = response;
      else left[key] = request;
    }
    if (Object.keys(answered).length === 0) return;
    const rest = Object.keys(left).length > 0;
    const changed = await this.#change(ticket.ref, ['input_required'], {
      status: rest ? 'input_required' : 'working',
      inputRequests: rest ? JSON.stringify(left) : null,
    });
    if (changed) this.#reactions[record.purpose]?.answered?.(record, answered);
  }

  /** `tasks/cancel`: `cancelled`, unless it is over already (then nothing changes). */
  async cancel(ticket: TaskTicket): Promise<void> {
    const record = await this.#live(ticket);
    const changed = await this.#change(ticket.ref, LIVE, {
      status: 'cancelled',
      inputRequests: null,
      statusMessage: 'cancelled by the client',
    });
    if (changed) this.#reactions[record.purpose]?.cancelled?.(record);
  }

  /** Whether the task is still working or asking (not settled, cancelled or gone). */
  async isLive(ref: string): Promise<boolean> {
    const record = await this.#rows.byRef(ref, this.#now().toISOString());
    return record !== undefined && LIVE.includes(record.status);
  }

  /**
   * How a task ended, by its ref (its producer reading it back): the status,
   * and the result or the error it ended with; undefined once it is gone.
   */
  async outcome(
    ref: string,
  ): Promise<
    { status: TaskRecordStatus; result?: CallToolResult; error?: RpcErrorObject } | undefined
  > {
    const record = await this.#rows.byRef(ref, this.#now().toISOString());
    if (record === undefined) return undefined;
    return {
      status: record.status,
      ...(record.result === null ? {} : { result: JSON.parse(record.result) as CallToolResult }),
      ...(record.error === null ? {} : { error: JSON.parse(record.error) as RpcErrorObject }),
    };
  }

  /** Deletes the tasks that expired (the sweep): how many. */
  prune(): Promise<number> {
    return this.#rows.prune(this.#now().toISOString());
  }

  async #live(ticket: TaskTicket): Promise<TaskRecord> {
    const record = await this.#rows.byRef(ticket.ref, this.#now().toISOString());
    if (record === undefined) throw new GatewayError('task_not_found');
    return record;
  }

  #change(
    ref: string,
    from: readonly TaskRecordStatus[],
    change: Omit<TaskChange, 'lastUpdatedAt'>,
  ): Promise<boolean> {
    const now = this.#now().toISOString();
    return this.#rows.change(ref, from, { ...change, lastUpdatedAt: now }, now);
  }
}

function stateOf(record: TaskRecord, taskId: string): TaskState {
  const state: TaskState = {
    taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: Date.parse(record.expiresAt) - Date.parse(record.createdAt),
  };
  if (record.pollIntervalMs !== null) state.pollIntervalMs = record.pollIntervalMs;
  if (record.statusMessage !== null) state.statusMessage = record.statusMessage;
  if (record.status === 'completed' && record.result !== null)
    state.result = JSON.parse(record.result) as Record<string, unknown>;
  if (record.status === 'failed' && record.error !== null)
    state.error = JSON.parse(record.error) as TaskState['error'] & object;
  if (record.status === 'input_required' && record.inputRequests !== null) {
    const requests: unknown = JSON.parse(record.inputRequests);
    if (isPlainObject(requests)) state.inputRequests = requests as Record<string, InputRequest>;
  }
  return state;
}

/** A refusal as the JSON-RPC error a failed task carries. */
function rpcErrorOf(error: GatewayError): RpcErrorObject {
  const shown = publicError(error);
  return { code: REASONS[error.code].rpc, message: shown.message, data: { error: shown } };
}
