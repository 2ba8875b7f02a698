/**
 * Executing one governed call, whatever the transport: the governance around
 * it (decision, validation, credential, audit, health) is the gateway's, the
 * call itself the executor's. One executor per tool source kind
 * (`native_rest` today), each behind this interface, every outbound byte
 * through the guarded client.
 */
import type { ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/server';
import { type CancelSignal, NEVER_CANCELLED } from '../base/cancellation.ts';
import type { JsonValue } from '../base/json-value.ts';
import type { TraceCarrier } from '../base/tracing.ts';
import type { ToolSourceKind, ToolTarget } from '../governance/tool-source.ts';
import type { ToolOutcome } from '../mcp/server/tool-backend.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import type { TaskStarted, TaskState } from '../mcp/wire/tasks.ts';
import type { ActingFor } from '../model/delegation.ts';
import type { Redactor } from '../outbound/redaction.ts';
import type { TaskAsk } from '../tasks/recorded-tasks.ts';
import type { TaskTicket } from '../tasks/task-ids.ts';
import type { CallOutcome } from './connection-health.ts';

/** One call to execute: transport-neutral; the executor reads its target's own shape. */
export interface ExecuteCall<T extends ToolTarget = ToolTarget> {
  target: T;
  /** Validated against the action's input schema. */
  arguments: Record<string, unknown>;
  /** The credential's fields by name; undefined when the action sends none. */
  credential: Record<string, string> | undefined;
  /** Whose credential goes with the call: the agent's own (its id), or the connection's shared one (null). */
  credentialOwner?: string | null;
  /** The member the calling agent acts for (their consent made it), with the agent and its client. */
  actingFor?: ActingFor | undefined;
  /** Every credential the gateway holds for the caller's workspace: none of them reaches the caller. */
  secrets?: Redactor;
  cancel: CancelSignal;
  /** What the calling client can do (for input an upstream asks for). */
  clientCapabilities: ClientCapabilities;
  /** The calling client's era (a 2025 caller is served on a server's 2025 wire when it has one). */
  era?: McpEra;
  /** Progress the upstream reports, relayed to the agent when it asked for it. */
  progress(progress: number, total?: number, message?: string): void;
  /** An upstream log message about this call, relayed when the agent wants that level. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /** The agent's answers to input this call asked for, and the state kept for them. */
  input: { responses: Record<string, unknown>; state: JsonValue | undefined } | undefined;
  /** The trace the request upstream is part of (the call's upstream span): none while tracing is off. */
  trace?: TraceCarrier | undefined;
  /**
   * Makes a task the upstream started for this call the caller's (an id of
   * ours, bound to the caller): given only when the calling client declared
   * the tasks extension, so a source that answers with a task without it is
   * answering wrongly.
   */
  startTask?: (task: UpstreamTask) => Promise<TaskStarted>;
}

/** A task an upstream started for a call: its state as the upstream tells it, its own id in it. */
export interface UpstreamTask {
  state: TaskState;
  /** The era of the caller the call was forwarded for (its upstream session's wire). */
  era: McpEra | undefined;
}

/** A `tasks/*` request for an upstream's task, to forward: the call's context, the task's ticket. */
export interface ExecuteTask<T extends ToolTarget = ToolTarget>
  extends Omit<ExecuteCall<T>, 'arguments' | 'input' | 'startTask'> {
  ticket: TaskTicket;
  request: TaskAsk;
}

/** What a forwarded `tasks/*` did: the task's state (`tasks/get`) and what to audit. */
export interface TaskExecution extends Omit<Execution, 'outcome' | 'health'> {
  state: TaskState | undefined;
}

/** What a call did, for the agent (its outcome) and for the audit event and health. */
export interface Execution {
  outcome: ToolOutcome;
  /** The host the call was for (the catalog's host, before any development override). */
  host: string;
  /** Where the call actually went when a development override sent it elsewhere, else null. */
  address: string | null;
  upstreamStatus: number | null;
  requestBytes: number;
  replyBytes: number;
  /** What the call says about the connection's health. */
  health: CallOutcome;
}

export interface Executor<T extends ToolTarget = ToolTarget> {
  readonly kind: ToolSourceKind;
  execute(call: ExecuteCall<T>): Promise<Execution>;
  /** Whether a failed call counts against the connection's health (`call`: whose credential it carried). */
  healthOutcomeOf(error: unknown, call?: Pick<ExecuteCall, 'credentialOwner'>): CallOutcome;
  /** Forwards a `tasks/*` for a task the source started (a source without tasks has none). */
  task?(call: ExecuteTask<T>): Promise<TaskExecution>;
  /** Whether a call for `acting`'s member goes upstream on their behalf (its audit event names the chain). */
  delegates?(target: T, acting: ActingFor): boolean;
}

/** The executors of every tool source kind. */
export class Executors {
  readonly #byKind: ReadonlyMap<ToolSourceKind, Executor>;

  constructor(executors: readonly Executor[]) {
    this.#byKind = new Map(executors.map((executor) => [executor.kind, executor]));
  }

  for(kind: ToolSourceKind): Executor {
    const executor = this.#byKind.get(kind);
    if (executor === undefined) throw new TypeError(`no executor for ${kind} tools`);
    return executor;
  }
}

/** The call context of a call no client is waiting on (an operator's verify read). */
export const OPERATOR_CALL: Omit<ExecuteCall, 'target' | 'arguments' | 'credential'> = {
  cancel: NEVER_CANCELLED,
  clientCapabilities: {},
  progress: () => {},
  log: () => {},
  input: undefined,
};
