/**
 * A task kept in the store (migration 0021): one that an in-process producer
 * works on and settles (a call held for approval, a fixture's long job),
 * as opposed to a remote server's task, which lives on its server. Its
 * `ref` names it (in the audit log too) and is not a secret; the id a
 * client polls with is sealed around it (core/tasks/task-ids.ts).
 */

/** As the tasks extension has them (`mcp/wire/tasks.ts`, a layer above, spells the same union). */
export type TaskRecordStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface TaskRecord {
  /** Random, unique; not a secret (the client's task id is sealed around it). */
  ref: string;
  /** What made the task (`approval`, …): whom its cancellation and answers are told to. */
  purpose: string;
  workspaceId: string;
  agentId: string;
  /** The connection of the call the task stands for. */
  connectionId: string;
  /** The tool the call named, as `/mcp` names it. */
  action: string;
  status: TaskRecordStatus;
  statusMessage: string | null;
  /** `completed`: the call's result (JSON). */
  result: string | null;
  /** `failed`: the JSON-RPC error (JSON). */
  error: string | null;
  /** `input_required`: what the task asks, by key (JSON). */
  inputRequests: string | null;
  pollIntervalMs: number | null;
  createdAt: string;
  lastUpdatedAt: string;
  /** Gone after this (ISO 8601): no poll finds it. */
  expiresAt: string;
  /**
   * The client's id of the task this one follows (migration 0028): a held
   * call's run that started a remote server's task; its requests go there.
   */
  follows: string | null;
}

/** What a producer changes of a task as it works on it. */
export type TaskChange = Partial<
  Pick<TaskRecord, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'follows'>
> &
  Pick<TaskRecord, 'lastUpdatedAt'>;
