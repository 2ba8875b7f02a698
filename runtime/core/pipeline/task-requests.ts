/**
 * The tasks extension's requests (`tasks/get`, `tasks/update`,
 * `tasks/cancel`), governed like the call that started the task: the id is
 * opened for its caller (another caller's is unknown, exactly as one that
 * never existed: `task_not_found`), the call's action is decided again
 * (the grant still held, the connection active, the action still allowed),
 * and each request leaves one audit event naming the task (`task:<ref>`).
 * Then the task's producer answers: the store for a recorded task
 * (`core/tasks/recorded-tasks.ts`), the remote server, through the
 * connection's executor, for a remote one.
 */

import { GatewayError } from '../base/errors.ts';
import { agentOf, type Caller } from '../identity/principals/principals.ts';
import type { TaskRequest } from '../mcp/server/tool-backend.ts';
import type { TaskState } from '../mcp/wire/tasks.ts';
import type { Executors } from '../sources/executor.ts';
import type { RecordedTasks } from '../tasks/recorded-tasks.ts';
import type { TaskIds, TaskOwner, TaskTicket } from '../tasks/task-ids.ts';
import { actingForOf } from './acting-for.ts';
import { type AuditedCall, type CallAudit, upstreamAttributes } from './audited-call.ts';
import type { CallCredentials } from './call-credentials.ts';
import { type AllowedTool, decideToolCall } from './decision.ts';
import type { WorkspaceSecrets } from './workspace-secrets.ts';

export interface TaskRequestsOptions {
  ids: TaskIds;
  recorded: RecordedTasks;
  /** A remote task's requests go to its source's executor, with the call's credential. */
  executors: Executors;
  credentials: CallCredentials;
  secrets: WorkspaceSecrets;
  audit: CallAudit;
  /** Before a recorded task's `tasks/get` is answered: its producer may settle it (a held call's). */
  settle?: (caller: Caller, request: TaskRequest, ref: string) => Promise<void>;
}

/** Who owns the tasks `caller` starts on `endpoint` (a connection's name; '' for `/mcp`). */
export function taskOwnerOf(caller: Caller, endpoint = ''): TaskOwner {
  return {
    workspaceId: caller.workspaceId,
    agentId: caller.agentId,
    memberId: agentOf(caller)?.memberId ?? null,
    endpoint,
  };
}

/** How an audit event names a task: by its reference, never by the id its client holds. */
export function taskSubject(ref: string): string {
  return `task:${ref}`;
}

export class TaskRequests {
  readonly #options: TaskRequestsOptions;

  constructor(options: TaskRequestsOptions) {
    this.#options = options;
  }

  /** Answers `request` of `caller` on `endpoint` (a connection's name; '' for `/mcp`). */
  answer(caller: Caller, request: TaskRequest, endpoint = ''): Promise<TaskState | undefined> {
    const ticket = this.#options.ids.open(taskOwnerOf(caller, endpoint), request.taskId);
    const opening = {
      caller,
      action: ticket === undefined ? request.method : `${request.method} ${ticket.action}`,
      method: request.method,
      trace: request.trace,
      span: request.span,
    };
    return this.#options.audit.run(opening, async (audited) => {
      if (ticket === undefined) {
        await audited.finish({ reason: 'task_not_found' });
        throw new GatewayError('task_not_found');
      }
      audited.event.subject = taskSubject(ticket.ref);
      const decision = audited.decide(() => decideToolCall(caller, ticket.action));
      if (!decision.allowed) return audited.refuse(decision);
      // The name now leads elsewhere (the connection was removed and made again): not this task's.
      if (decision.connection.id !== ticket.connectionId) {
        await audited.finish({ reason: 'task_not_found', connectionId: decision.connection.id });
        throw new GatewayError('task_not_found');
      }
      audited.allowed(decision.connection.id);
      audited.actionClass = decision.target.action.classification;
      try {
        if (ticket.kind === 'remote')
          return await this.#remote(caller, request, ticket, decision, audited);
        if (request.method === 'tasks/get' && this.#options.settle)
          await this.#options.settle(caller, request, ticket.ref);
        // A held call's task whose run started a remote server's task: that one answers.
        const follows = await this.#options.recorded.followed(ticket.ref);
        if (follows !== undefined) {
          const followed = this.#options.ids.open(taskOwnerOf(caller, endpoint), follows);
          if (followed?.kind !== 'remote') throw new GatewayError('task_not_found');
          return await this.#remote(caller, request, followed, decision, audited);
        }
        const state = await this.#options.recorded.answer(ticket, request);
        await audited.finish({ decision: 'allowed', outcome: 'ok' });
        return state;
      } catch (error) {
        if (!audited.finished) await audited.failed(error);
        throw error;
      }
    });
  }

  /**
   * A remote task's request, forwarded as the call was: the call's
   * credential, the workspace's secrets redacted from the reply, the
   * upstream session of the caller's era when the task started.
   */
  async #remote(
    caller: Caller,
    request: TaskRequest,
    ticket: TaskTicket,
    decision: AllowedTool,
    audited: AuditedCall,
  ): Promise<TaskState | undefined> {
    const { target, credentialOwner } = decision;
    const { source, action } = target;
    const executor = this.#options.executors.for(source.kind);
    if (executor.task === undefined) throw new GatewayError('task_not_found');
    const credential = await this.#options.credentials.of(
      caller,
      decision,
      source.sendsCredential(action),
    );
    const secrets = await this.#options.secrets.of(caller.snapshot, caller.workspaceId);
    const execution = await audited.upstream(
      upstreamAttributes(source.kind, action.classification),
      (trace) =>
        executor.task!({
          target,
          credential,
          credentialOwner,
          actingFor: actingForOf(caller),
          secrets,
          cancel: request.cancel,
          clientCapabilities: request.clientCapabilities,
          era: ticket.era,
          progress: () => {},
          log: () => {},
          trace,
          ticket,
          request,
        }),
    );
    await audited.executed(execution);
    return execution.state;
  }
}
