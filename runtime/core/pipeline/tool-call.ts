/**
 * A tool call, once decided: the tool-call adapter of the governed pipeline.
 *
 *   decision (decision.ts) → the rate limits (call-limits.ts) → validate
 *   the arguments → the credential → execute (the source's executor) → the
 *   connection's health → audit
 *
 * A refusal is the decision's `GatewayError`; a failure on the way is
 * audited by its code (`denied` for the caller's own input, otherwise an
 * error) and the connection's health hears of it. Once the call has
 * happened nothing may turn it into a failure the agent would retry: a store
 * that cannot take the bookkeeping is the operator's to see.
 */

import type { Caller } from '../identity/principals/principals.ts';
import type { ToolCall, ToolOutcome } from '../mcp/server/tool-backend.ts';
import { declaresTasks, type TaskStarted } from '../mcp/wire/tasks.ts';
import type { Connection } from '../model/governance.ts';
import type { Store } from '../ports/store.ts';
import { type CallOutcome, nextHealth } from '../sources/connection-health.ts';
import type { Execution, Executors, UpstreamTask } from '../sources/executor.ts';
import type { RemoteTasks } from '../tasks/remote-tasks.ts';
import { actingForOf, recordDelegation } from './acting-for.ts';
import { validateArguments } from './arguments.ts';
import { type AuditedCall, upstreamAttributes } from './audited-call.ts';
import type { CallCredentials } from './call-credentials.ts';
import { type CallLimits, chargeLimits } from './call-limits.ts';
import type { ToolDecision } from './decision.ts';
import { approvalSubject, type HeldCalls } from './held-calls.ts';
import { taskOwnerOf, taskSubject } from './task-requests.ts';
import type { WorkspaceSecrets } from './workspace-secrets.ts';

export interface ToolCallsOptions {
  store: Store;
  executors: Executors;
  credentials: CallCredentials;
  secrets: WorkspaceSecrets;
  now: () => Date;
  /** The rate limits calls are charged to once allowed; none without. */
  limits?: CallLimits | undefined;
  /** Told about failures no caller should see, with the call they belong to. */
  report: (error: unknown, context?: { tool: string; traceparent?: string }) => void;
  /** Makes an upstream's task of a call the caller's. */
  remoteTasks: RemoteTasks;
  /** Holds the calls to `ask` actions for approval. */
  held: HeldCalls;
}

export class ToolCalls {
  readonly #options: ToolCallsOptions;

  constructor(options: ToolCallsOptions) {
    this.#options = options;
  }

  /** Runs `call`; `approved`: the id of the approval it runs under, already claimed (held-calls.ts). */
  async run(
    caller: Caller,
    call: ToolCall,
    decision: ToolDecision,
    audited: AuditedCall,
    approved?: string,
  ): Promise<ToolOutcome> {
    if (!decision.allowed) return audited.refuse(decision);
    const { target, connection, credentialOwner } = decision;
    const { source, action } = target;
    const limited = await chargeLimits(audited, this.#options.limits, caller, {
      agent: decision.agent,
      connection,
      action: call.name,
      classification: action.classification,
    });
    if (limited)
      return audited.refuse({ allowed: false, refusal: limited, connectionId: connection.id });
    audited.allowed(connection.id);
    audited.actionClass = action.classification;
    if (approved !== undefined) audited.event.subject = approvalSubject(approved);
    else if (decision.ask) return this.#hold(caller, call, decision, audited);
    const executor = this.#options.executors.for(source.kind);
    const actingFor = actingForOf(caller);
    recordDelegation(audited.event, executor, target, actingFor);
    let execution: Execution;
    try {
      if (audited.argumentProblem !== undefined) throw audited.argumentProblem;
      const validated = validateArguments(source, action, call.arguments);
      const credential = await this.#options.credentials.of(
        caller,
        decision,
        source.sendsCredential(action),
      );
      const secrets = await this.#options.secrets.of(caller.snapshot, caller.workspaceId);
      const upstream = upstreamAttributes(source.kind, action.classification);
      execution = await audited.upstream(upstream, (trace) =>
        executor.execute({
          target,
          arguments: validated,
          credential,
          credentialOwner,
          actingFor,
          secrets,
          cancel: call.cancel,
          clientCapabilities: call.clientCapabilities,
          era: call.era,
          progress: call.progress,
          log: call.log,
          input: call.input,
          trace,
          ...(declaresTasks(call.clientCapabilities)
            ? {
                startTask: (task: UpstreamTask) =>
                  this.#startTask(caller, call, connection, task, audited),
              }
            : {}),
        }),
      );
    } catch (error) {
      await this.#recordHealth(connection, executor.healthOutcomeOf(error, { credentialOwner }));
      await audited.failed(error);
      throw error;
    }
    await this.#recordHealth(connection, execution.health);
    const failed = 'isError' in execution.outcome && execution.outcome.isError === true;
    await audited.executed(execution, failed).catch((error: unknown) =>
      this.#options.report(error, {
        tool: call.name,
        ...(call.trace ? { traceparent: call.trace.traceparent } : {}),
      }),
    );
    return execution.outcome;
  }

  /**
   * A call to an `ask` action: valid arguments held for approval. Answers
   * what the call is answered (a task, or the approved call's result once it
   * ran, `held-calls.ts`); a wait that ends otherwise is its refusal.
   */
  async #hold(
    caller: Caller,
    call: ToolCall,
    decision: ToolDecision & { allowed: true },
    audited: AuditedCall,
  ): Promise<ToolOutcome> {
    try {
      if (audited.argumentProblem !== undefined) throw audited.argumentProblem;
      validateArguments(decision.target.source, decision.target.action, call.arguments);
      return await this.#options.held.hold(caller, call, decision, audited);
    } catch (error) {
      if (!audited.finished) await audited.failed(error);
      throw error;
    }
  }

  /** An upstream's task of the call, under an id of ours bound to the caller; its event names it. */
  async #startTask(
    caller: Caller,
    call: ToolCall,
    connection: Connection,
    task: UpstreamTask,
    audited: AuditedCall,
  ): Promise<TaskStarted> {
    const { ref, started } = this.#options.remoteTasks.start(taskOwnerOf(caller, call.endpoint), {
      connectionId: connection.id,
      action: call.name,
      state: task.state,
      era: task.era,
    });
    audited.event.subject = taskSubject(ref);
    return started;
  }

  async #recordHealth(connection: Connection, outcome: CallOutcome): Promise<void> {
    const next = nextHealth(connection, outcome);
    if (next.health === connection.health && next.failureStreak === connection.failureStreak)
      return;
    // The snapshot's row is the process's view of health between revisions.
    connection.health = next.health;
    connection.failureStreak = next.failureStreak;
    // Best effort: health is advice for operators, never a reason to fail a call.
    await this.#options.store.connections
      .recordHealth(
        connection.id,
        next.health,
        next.failureStreak,
        this.#options.now().toISOString(),
      )
      .catch((error: unknown) => this.#options.report(error));
  }
}
