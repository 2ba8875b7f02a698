/**
 * Calls to an `ask` action, held for approval (docs/approvals.md). A call
 * already decided and allowed (grant, scopes, review state, rate limits) and
 * whose arguments are valid stops here:
 *
 * - the same call (agent, connection, action, arguments' hash) approved and
 *   not yet run: it is claimed (approved → executed, a compare-and-set in
 *   the store, so it runs once across replicas) and runs;
 * - the same call's last approval denied or expired, its agent not yet
 *   told: answered `approval_denied` with the approver's reason, or
 *   `approval_expired`, once;
 * - otherwise it is held: an approval row, one audit event (`approval_pending`
 *   naming `approval:<id>`); a client that takes tasks is answered a task
 *   in `working` (its `tasks/get` settles it: `settleTask`), any other waits
 *   on its open request up to the wait, with progress while it waits, and
 *   is then answered `approval_pending` with the approval's id.
 *
 * A task client's approved call runs when it is approved: the verb that
 * approves tells every replica (`runApproved`), and the one that claims it
 * runs it with the context kept beside the approval (`HeldCallContext`),
 * its result the task's; the task's `tasks/get` settles it too, for an
 * approval no replica heard of. Either way the claim is the one
 * compare-and-set, so the call runs once.
 *
 * Nothing is kept in memory across requests: every replica reads the row.
 */
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { GatewayError, REASONS, type ReasonCode } from '../base/errors.ts';
import { isPlainObject } from '../base/json-value.ts';
import { auditEvent } from '../governance/audit-event.ts';
import { shownArguments } from '../governance/shown-arguments.ts';
import { agentOf, type Caller, type CredentialKind } from '../identity/principals/principals.ts';
import type { RequestContext, ToolCall, ToolOutcome } from '../mcp/server/tool-backend.ts';
import type { RpcErrorObject } from '../mcp/wire/json-rpc.ts';
import { declaresTasks, type TaskStarted } from '../mcp/wire/tasks.ts';
import type { Approval } from '../model/approvals.ts';
import type { AuditVia } from '../model/governance.ts';
import type { ApprovalKey, ApprovalRows, Store } from '../ports/store.ts';
import type { RecordedTasks } from '../tasks/recorded-tasks.ts';
import type { AuditedCall } from './audited-call.ts';
import type { AllowedTool } from './decision.ts';
import { taskOwnerOf } from './task-requests.ts';

export interface HeldCallsOptions {
  approvals: ApprovalRows;
  tasks: RecordedTasks;
  now: () => Date;
  /** How long an approval waits to be decided, and an approved call to be made (default 15 min). */
  ttlMs?: number;
  /** How long a client without tasks waits on its request (default 60 s). */
  waitMs?: number;
  /** How often a waiting request reads its approval again (default 1 s). */
  pollMs?: number;
  /** Runs an approved call if this replica claims it (`GovernedTools.runApproved`); never throws. */
  run: (id: string) => Promise<void>;
  /** Told of each new approval once it is stored (the webhook); never awaited. */
  held?: (approval: Approval) => void;
}

/** How long a request waits for an approved call's run at least (its upstream's deadline is of this order). */
const RUN_WAIT_MS = 60_000;

/** The purpose of the recorded tasks of held calls. */
export const APPROVAL_PURPOSE = 'approval';

/** How an audit event names an approval. */
export function approvalSubject(id: string): string {
  return `approval:${id}`;
}

/**
 * How a held call that answered a task was made (kept as `Approval.callContext`):
 * what its caller is restored from (the agent, the credential's kind and
 * scopes, the OAuth client and enterprise IdP of its token) and the request
 * context its approved call runs in.
 */
export interface HeldCallContext {
  via: CredentialKind;
  /** An access token's scopes; absent for an agent key. */
  scopes?: string[];
  /** The OAuth client the access token was issued to; absent for an agent key. */
  clientId?: string;
  /** The enterprise IdP whose ID-JAG the access token was issued from; absent otherwise. */
  idp?: string;
  era: RequestContext['era'];
  protocolVersion: string;
  clientCapabilities: RequestContext['clientCapabilities'];
  /** `/mcp/c/<connection>`'s connection; absent: `/mcp`. */
  endpoint?: string;
  /** How the call came (`discovery`: a `call_action`); its run's event says the same. */
  auditVia?: AuditVia;
  /** Whether the client was answered the task (it polls it); else the task is the gateway's own. */
  task: boolean;
}

/** The context kept for `call` made by `caller`. */
export function heldCallContext(
  caller: Caller,
  call: ToolCall,
  via: AuditVia | null,
  task: boolean,
): HeldCallContext {
  return {
    task,
    ...(via === null ? {} : { auditVia: via }),
    via: caller.via,
    ...(caller.scopes === undefined ? {} : { scopes: [...caller.scopes].sort() }),
    ...(caller.clientId === undefined ? {} : { clientId: caller.clientId }),
    ...(caller.idp === undefined ? {} : { idp: caller.idp }),
    era: call.era,
    protocolVersion: call.protocolVersion,
    clientCapabilities: call.clientCapabilities,
    ...(call.endpoint === undefined ? {} : { endpoint: call.endpoint }),
  };
}

/**
 * Runs an approved call (claimed already): its result, the task it started
 * (a remote server's, under the client's id of it), or a `GatewayError`.
 */
export type ApprovedRun = (approval: Approval) => Promise<CallToolResult | TaskStarted>;

export class HeldCalls {
  readonly #options: HeldCallsOptions;
  readonly #ttlMs: number;
  readonly #waitMs: number;
  readonly #pollMs: number;

  constructor(options: HeldCallsOptions) {
    this.#options = options;
    this.#ttlMs = options.ttlMs ?? 900_000;
    this.#waitMs = options.waitMs ?? 60_000;
    this.#pollMs = options.pollMs ?? 1_000;
  }

  /**
   * Holds `call`. A client that takes tasks is answered its task. Any other
   * is answered the approved call's result once it has run, waiting on its
   * open request up to the wait; its call again finds the same approval, and
   * gets the result if no request got it yet. Throws `approval_*` when the
   * wait ends otherwise. The call's own event is written here: held
   * (`approval_pending`), or allowed when it is answered a result that ran.
   */
  async hold(
    caller: Caller,
    call: ToolCall,
    decision: AllowedTool,
    audited: AuditedCall,
  ): Promise<ToolOutcome> {
    const key: ApprovalKey = {
      agentId: caller.agentId,
      connectionId: decision.connection.id,
      action: call.name,
      argumentsHash: audited.event.argumentHash ?? '',
    };
    const connectionId = decision.connection.id;
    const tasks = declaresTasks(call.clientCapabilities);
    // A client that takes tasks is answered a task of its own; any other calling again
    // finds the same call's approval, unless its result was given already (or it is a
    // task client's: its task is that client's to poll, and may follow one upstream).
    const prior = tasks
      ? undefined
      : await this.#options.approvals.latestFor(
          key,
          ['pending', 'approved', 'executed'],
          this.#nowIso(),
        );
    if (prior !== undefined && prior.deliveredAt === null && !answeredTask(prior)) {
      audited.event.subject = approvalSubject(prior.id);
      const ready = prior.state === 'pending' ? 'waiting' : await this.#resultOf(prior, false);
      if (typeof ready === 'object') {
        await audited.finish({ decision: 'allowed', outcome: 'ok', connectionId });
        return ready.result;
      }
      if (ready === 'waiting') {
        await audited.finish({ reason: 'approval_pending', connectionId });
        return this.#wait(prior, call);
      }
    }
    // The same call's last approval denied or expired, and no request told of it: told once, with why.
    const ended = tasks ? undefined : await this.#endedUntold(key);
    if (ended !== undefined) {
      audited.event.subject = approvalSubject(ended.approval.id);
      await audited.finish({ reason: ended.error.code, connectionId });
      throw ended.error;
    }
    const created = await this.#create(caller, call, decision, key, tasks, audited.event.via);
    audited.event.subject = approvalSubject(created.approval.id);
    await audited.finish({ reason: 'approval_pending', connectionId });
    return created.started ?? this.#wait(created.approval, call);
  }

  async #create(
    caller: Caller,
    call: ToolCall,
    decision: AllowedTool,
    key: ApprovalKey,
    tasks: boolean,
    via: AuditVia | null,
  ): Promise<{ approval: Approval; started?: TaskStarted }> {
    const at = this.#options.now();
    const expiresAt = new Date(at.getTime() + this.#ttlMs).toISOString();
    const id = `apr_${randomBytes(12).toString('base64url')}`;
    // Every held call has its task: where its result is kept once it runs. A client
    // that takes tasks polls it; for any other it is the gateway's own.
    const task = await this.#options.tasks.start(taskOwnerOf(caller, call.endpoint), {
      purpose: APPROVAL_PURPOSE,
      connectionId: decision.connection.id,
      action: call.name,
      statusMessage: waitingMessage(id),
      // The task outlives its approval by an hour, so its end can be read.
      ttlMs: this.#ttlMs + 3_600_000,
      pollIntervalMs: 2_000,
    });
    const approval: Approval = {
      id,
      workspaceId: caller.workspaceId,
      agentId: caller.agentId,
      memberId: agentOf(caller)?.memberId ?? null,
      connectionId: key.connectionId,
      action: key.action,
      classification: decision.target.action.classification,
      argumentsHash: key.argumentsHash,
      arguments: JSON.stringify(call.arguments ?? {}),
      shownArguments: JSON.stringify(
        shownArguments(call.arguments, decision.target.action.inputSchema),
      ),
      state: 'pending',
      taskRef: task.ref,
      callContext: JSON.stringify(heldCallContext(caller, call, via, tasks)),
      deliveredAt: null,
      decidedBy: null,
      decidedAt: null,
      reason: null,
      createdAt: at.toISOString(),
      expiresAt,
      executedAt: null,
    };
    await this.#options.approvals.create(approval);
    this.#options.held?.(approval);
    return tasks ? { approval, started: task.started } : { approval };
  }

  /**
   * Waits on the open request until the approval's call has run (its
   * result), is denied or expires, or the wait ends. Approved, this replica
   * runs it if no other has claimed it (`run`); run, its result is read
   * from its task.
   */
  async #wait(approval: Approval, call: ToolCall): Promise<ToolOutcome> {
    const started = Date.now();
    // Once approved, its run is waited for as long as a call upstream may take.
    let limit = this.#waitMs;
    let cancelled = call.cancel.cancelled;
    let wake: (() => void) | undefined;
    const stop = call.cancel.onCancel(() => {
      cancelled = true;
      wake?.();
    });
    try {
      for (;;) {
        const current = (await this.#options.approvals.byId(approval.id)) ?? approval;
        const now = this.#options.now();
        if (current.state === 'approved' || current.state === 'executed') {
          const ready = await this.#resultOf(current, true);
          if (typeof ready === 'object') return ready.result;
          if (ready === 'given') throw pendingError(call.name, current.id);
          limit = Math.max(this.#waitMs, RUN_WAIT_MS);
        } else if (current.state === 'denied') {
          // Told here: the call again is held anew, not told twice.
          await this.#options.approvals.deliver(current.id, this.#nowIso());
          throw deniedError(call.name, current);
        } else if (current.state === 'expired' || Date.parse(current.expiresAt) <= now.getTime()) {
          // Told here, as a denial is.
          await this.#options.approvals.deliver(current.id, now.toISOString());
          throw expiredError(call.name, current.id);
        }
        const waited = Date.now() - started;
        if (cancelled || waited >= limit) throw pendingError(call.name, current.id);
        call.progress(waited, limit, waitingMessage(current.id));
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(this.#pollMs, limit - waited));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      stop();
    }
  }

  /**
   * The result of an approved call for a client without tasks: run now if
   * approved (on this replica, if it claims it), then read from its task;
   * a call that failed throws its error. The result is marked given
   * (`deliver`); a request waiting on it (`waiting`) gets it whatever, a
   * call again only if no request got it yet (else `given`). `waiting`: not
   * run yet (it may be running on another replica); `given`: no result for
   * this call (given already, or an approval without a task).
   */
  async #resultOf(
    approval: Approval,
    waiting: boolean,
  ): Promise<{ result: CallToolResult } | 'waiting' | 'given'> {
    let current = approval;
    if (current.state === 'approved') {
      await this.#options.run(current.id);
      current = (await this.#options.approvals.byId(current.id)) ?? current;
    }
    if (current.taskRef === null) return 'given';
    if (current.state !== 'executed') return 'waiting';
    const outcome = await this.#options.tasks.outcome(current.taskRef);
    if (outcome?.status === 'working' || outcome?.status === 'input_required') return 'waiting';
    if (outcome === undefined || outcome.status === 'cancelled') return 'given';
    const given = await this.#options.approvals.deliver(current.id, this.#nowIso());
    if (!given && !waiting) return 'given';
    if (outcome.result !== undefined) return { result: outcome.result };
    throw errorOf(outcome.error);
  }

  /**
   * The newest approval of `key`, whatever its state and time, if it ended
   * without running (denied, or expired: by the sweep or past its time)
   * and no request was told of it yet: its refusal, marked told here (once
   * across replicas, as a result is given).
   */
  async #endedUntold(
    key: ApprovalKey,
  ): Promise<{ approval: Approval; error: GatewayError } | undefined> {
    const { approvals } = this.#options;
    const now = this.#nowIso();
    const last = await approvals.latestFor(
      key,
      ['pending', 'approved', 'executed', 'denied', 'expired'],
      undefined,
    );
    // A task client's end is its task's to tell.
    if (last === undefined || last.deliveredAt !== null || answeredTask(last)) return undefined;
    const lapsed =
      last.state === 'expired' ||
      ((last.state === 'pending' || last.state === 'approved') && last.expiresAt <= now);
    const error =
      last.state === 'denied'
        ? deniedError(key.action, last)
        : lapsed
          ? expiredError(key.action, last.id)
          : undefined;
    if (error === undefined || !(await approvals.deliver(last.id, now))) return undefined;
    return { approval: last, error };
  }

  /** approved → executed, once across replicas: true for the one that won. */
  #claim(approval: Approval): Promise<boolean> {
    const now = this.#nowIso();
    return this.#options.approvals.change(
      approval.id,
      ['approved'],
      { state: 'executed', executedAt: now },
      now,
    );
  }

  /**
   * A `tasks/get` of a held call's task, before it is answered: settles the
   * task from its approval (denied, expired: failed; approved: claimed, and
   * `run` makes the call, whose result completes the task).
   */
  async settleTask(ref: string, run: ApprovedRun): Promise<void> {
    const approval = await this.#options.approvals.byTaskRef(ref);
    if (approval !== undefined) await this.#settle(approval, ref, run);
  }

  /**
   * An approval just approved, on whichever replica hears of it: a held
   * call's task settled as its `tasks/get` would, `run` making the call
   * (`prepare` gives it, from the approval's `HeldCallContext`; undefined:
   * left for the task's next poll). A call that answered no task runs in
   * its waiting request, or when the agent calls again.
   */
  async runApproved(
    id: string,
    prepare: (approval: Approval, context: HeldCallContext) => Promise<ApprovedRun | undefined>,
  ): Promise<void> {
    const approval = await this.#options.approvals.byId(id);
    if (approval?.taskRef == null || approval.callContext === null) return;
    if (approval.state !== 'approved') return;
    const run = await prepare(approval, JSON.parse(approval.callContext) as HeldCallContext);
    if (run !== undefined) await this.#settle(approval, approval.taskRef, run);
  }

  async #settle(approval: Approval, ref: string, run: ApprovedRun): Promise<void> {
    const { tasks } = this.#options;
    // A task the client cancelled (or one already settled) runs nothing.
    if (!(await tasks.isLive(ref))) return;
    const now = this.#options.now();
    if (approval.state === 'denied') {
      await tasks.fail(ref, deniedError(approval.action, approval));
      return;
    }
    const overdue = Date.parse(approval.expiresAt) <= now.getTime();
    if (approval.state === 'expired' || (approval.state !== 'executed' && overdue)) {
      await tasks.fail(ref, expiredError(approval.action, approval.id));
      return;
    }
    if (approval.state !== 'approved' || !(await this.#claim(approval))) return;
    try {
      const outcome = await run(approval);
      // A run that started a task upstream: the held task follows it from now on.
      if (outcome.resultType === 'task') await tasks.follow(ref, (outcome as TaskStarted).taskId);
      else
        await tasks.complete(
          ref,
          outcome as CallToolResult,
          `approved; ran as ${approvalSubject(approval.id)}`,
        );
    } catch (error) {
      await tasks.fail(ref, error instanceof GatewayError ? error : new GatewayError('internal'));
    }
  }

  #nowIso(): string {
    return this.#options.now().toISOString();
  }
}

/**
 * The sweep's part (every minute, on each replica): approvals whose time ran
 * out become `expired`, each with its audit event (actor `system`); settled
 * ones a day old are deleted. Answers how many expired.
 */
export async function expireApprovals(
  store: Pick<Store, 'approvals' | 'audit'>,
  now: Date,
): Promise<number> {
  const at = now.toISOString();
  let expired = 0;
  for (const approval of await store.approvals.overdue(at, 500)) {
    if (
      !(await store.approvals.change(
        approval.id,
        ['pending', 'approved'],
        { state: 'expired' },
        undefined,
      ))
    )
      continue;
    expired += 1;
    await store.audit.append(
      auditEvent({
        at,
        workspaceId: approval.workspaceId,
        actorKind: 'system',
        actorId: null,
        action: 'approval.expire',
        decision: 'allowed',
        outcome: 'ok',
        connectionId: approval.connectionId,
        subject: approvalSubject(approval.id),
      }),
    );
  }
  await store.approvals.prune(new Date(now.getTime() - 86_400_000).toISOString());
  return expired;
}

/** Whether the held call's client was answered a task (it polls it), as approvers are told. */
export function answeredTask(approval: Approval): boolean {
  if (approval.callContext === null) return approval.taskRef !== null;
  return (JSON.parse(approval.callContext) as Partial<HeldCallContext>).task === true;
}

/** The task's status message while it waits. */
function waitingMessage(id: string): string {
  return `waiting for an owner or operator of the workspace to approve ${id}`;
}

/**
 * A failed task's error as the error a client without tasks is answered,
 * its detail kept (a capability the upstream needs: `requiredCapabilities`).
 */
function errorOf(error: RpcErrorObject | undefined): GatewayError {
  const shown = (
    error?.data as { error?: { code?: unknown; message?: unknown; detail?: unknown } } | undefined
  )?.error;
  const code =
    typeof shown?.code === 'string' && Object.hasOwn(REASONS, shown.code)
      ? (shown.code as ReasonCode)
      : 'internal';
  const detail = isPlainObject(shown?.detail) ? { detail: shown.detail } : {};
  return new GatewayError(
    code,
    typeof shown?.message === 'string' ? shown.message : undefined,
    detail,
  );
}

function pendingError(tool: string, id: string): GatewayError {
  return new GatewayError(
    'approval_pending',
    `${tool}: this call is held for approval ${id}; ask an owner or operator of the workspace to approve it (portcullis approval approve ${id}, or the console's Approvals page), then call again with the same arguments`,
    { detail: { approval: id } },
  );
}

function deniedError(tool: string, approval: Approval): GatewayError {
  const why = approval.reason ? `: ${approval.reason}` : '';
  return new GatewayError(
    'approval_denied',
    `${tool}: approval ${approval.id} was denied${why}; ask an owner or operator of the workspace before calling it again`,
    { detail: { approval: approval.id } },
  );
}

function expiredError(tool: string, id: string): GatewayError {
  return new GatewayError(
    'approval_expired',
    `${tool}: approval ${id} expired before it was used; call again to ask an owner or operator of the workspace again`,
    { detail: { approval: id } },
  );
}
