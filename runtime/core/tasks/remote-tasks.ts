/**
 * A remote server's task, made its caller's: the server's own id stays on
 * our side, sealed in the ticket of an id of ours (task-ids.ts) with the
 * connection, the action and the caller's era, so any replica, after any
 * restart, finds the task again by the id alone and no row is kept. The
 * server's timestamps and status message pass on; its time to live is kept
 * no longer than a day.
 */
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import { type TaskStarted, type TaskState, taskStarted } from '../mcp/wire/tasks.ts';
import { TaskIds, type TaskOwner } from './task-ids.ts';

/** The longest a remote task's id is good for, whatever its server says. */
export const MAX_REMOTE_TASK_MS = 24 * 3_600_000;

export interface RemoteTaskStart {
  connectionId: string;
  action: string;
  /** The task as the server started it, its own id in `taskId`. */
  state: TaskState;
  era: McpEra | undefined;
}

export class RemoteTasks {
  readonly #ids: TaskIds;
  readonly #now: () => number;

  constructor(options: { ids: TaskIds; now?: () => number }) {
    this.#ids = options.ids;
    this.#now = options.now ?? Date.now;
  }

  /** The result the caller's call answers with, under an id of ours, and the task's reference. */
  start(owner: TaskOwner, start: RemoteTaskStart): { ref: string; started: TaskStarted } {
    const now = this.#now();
    const ttlMs = Math.min(start.state.ttlMs ?? MAX_REMOTE_TASK_MS, MAX_REMOTE_TASK_MS);
    const ref = TaskIds.newRef();
    const taskId = this.#ids.seal(owner, {
      kind: 'remote',
      ref,
      upstreamId: start.state.taskId,
      ...(start.era === undefined ? {} : { era: start.era }),
      connectionId: start.connectionId,
      action: start.action,
      createdAt: now,
      expiresAt: now + ttlMs,
    });
    return { ref, started: taskStarted({ ...start.state, taskId, ttlMs }) };
  }
}
