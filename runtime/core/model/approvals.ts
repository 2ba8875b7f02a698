/**
 * A call held for approval (migration 0022): an `ask` action's call, decided
 * and allowed, that waits for an owner or operator. It covers that one call:
 * the agent, the connection, the action and the sha256 of the canonical
 * arguments; it expires, and it is used at most once (`executed`), across
 * replicas, by a compare-and-set on its state (docs/approvals.md).
 */
import type { Classification } from '../../../generated/catalog-format.ts';

/**
 * `pending` → `approved` → `executed` (the call ran, once), or `denied`, or
 * `expired` (no one decided in time, or an approved call was not made again
 * in time). Only `pending` and `approved` ever change.
 */
export type ApprovalState = 'pending' | 'approved' | 'denied' | 'expired' | 'executed';

export interface Approval {
  /** `apr_…`, random: what approvers and the agent name it by. */
  id: string;
  workspaceId: string;
  agentId: string;
  /** The member the agent acts for (an OAuth client's), if any: that member may not approve it unless allowed. */
  memberId: string | null;
  connectionId: string;
  /** The tool, as `/mcp` names it. */
  action: string;
  classification: Classification;
  /** sha256 of the arguments' canonical JSON (as the audit event has it). */
  argumentsHash: string;
  /** The arguments as called (JSON): what runs once it is approved. Never shown. */
  arguments: string;
  /** The arguments as approvers see them (JSON): write-only values masked. */
  shownArguments: string;
  state: ApprovalState;
  /** The task a client that takes tasks polls for it (its ref), if the call answered one. */
  taskRef: string | null;
  /** Who approved or denied it (`member:<id>`, `admin:<id>`, `cli`). */
  decidedBy: string | null;
  decidedAt: string | null;
  /** A denial's reason, as the approver gave it. */
  reason: string | null;
  createdAt: string;
  /** Pending or approved past this: expired. Approving restarts it. */
  expiresAt: string;
  executedAt: string | null;
  /**
   * How the held call was made (JSON of `HeldCallContext`, `pipeline/held-calls.ts`):
   * what the replica that sees it approved runs it with. Never shown. Null for
   * approvals an earlier version held (their call runs where it is waited on).
   */
  callContext: string | null;
  /** When its result went to a client without tasks (its wait, or its call again); a call after that is held anew. */
  deliveredAt: string | null;
}

/** What a step changes of an approval. */
export type ApprovalChange = Pick<Approval, 'state'> &
  Partial<Pick<Approval, 'decidedBy' | 'decidedAt' | 'reason' | 'expiresAt' | 'executedAt'>>;
