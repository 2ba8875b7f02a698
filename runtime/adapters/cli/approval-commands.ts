/**
 * The approvers' commands: `approval list`, `approval show`, `approval
 * approve`, `approval deny`, over `core/operator/approvals.ts`
 * (docs/approvals.md). The arguments are the agent's text: printed as JSON,
 * made inert for the terminal like every other text.
 */
import {
  type ApprovalView,
  approveApproval,
  denyApproval,
  listApprovals,
  showApproval,
} from '../../core/operator/approvals.ts';
import type { Command } from './command.ts';
import { printRows, printValue, styled } from './output.ts';

const idFields = { approval: '<id>' };

export const approvalCommands: Record<string, Command> = {
  'approval list': {
    usage: 'approval list [--state pending|approved|denied|expired|executed|all] [--workspace w]',
    summary: 'list the calls held for approval (pending ones unless --state)',
    options: { state: { type: 'string' } },
    fields: { state: '--state' },
    run: async ({ ctx, out, values, workspace }) => {
      const rows = await listApprovals(ctx, {
        workspace,
        ...(typeof values.state === 'string' ? { state: values.state } : {}),
      });
      printRows(
        out,
        rows.map((a) => ({
          id: a.id,
          state: a.state === 'pending' ? styled('yellow', a.state) : a.state,
          agent: a.member === null ? a.agent : `${a.agent} (for ${a.member})`,
          connection: a.server?.verified === false ? `${a.connection} (unverified)` : a.connection,
          action: a.action,
          class: a.classification,
          expires: a.expiresAt,
        })),
        ['id', 'state', 'agent', 'connection', 'action', 'class', 'expires'],
        rows,
      );
    },
  },
  'approval show': {
    usage: 'approval show <id> [--workspace w]',
    summary: 'one held call whole: who, where, what, and its exact arguments',
    fields: idFields,
    run: async ({ ctx, out, args, workspace }) => {
      const approval = await showApproval(ctx, { workspace, approval: idOf(args) });
      printValue(out, approval, approvalText(approval));
    },
  },
  'approval approve': {
    usage: 'approval approve <id> [--workspace w]',
    summary: 'approve a held call: it runs once, for the agent that made it',
    fields: idFields,
    run: async ({ ctx, out, args, workspace }) => {
      const approval = await approveApproval(ctx, { workspace, approval: idOf(args) });
      printValue(
        out,
        approval,
        `approved ${approval.id}: ${approval.action} runs once for ${approval.agent}`,
      );
    },
  },
  'approval deny': {
    usage: 'approval deny <id> [--reason text] [--workspace w]',
    summary: 'deny a held call (the agent is told, with the reason)',
    options: { reason: { type: 'string' } },
    fields: { ...idFields, reason: '--reason' },
    run: async ({ ctx, out, args, values, workspace }) => {
      const approval = await denyApproval(ctx, {
        workspace,
        approval: idOf(args),
        ...(typeof values.reason === 'string' ? { reason: values.reason } : {}),
      });
      printValue(out, approval, `denied ${approval.id}: ${approval.action} will not run`);
    },
  },
};

/** The id argument (an empty one is the verb's `not_found`, naming the field). */
function idOf(args: string[]): string {
  return args[0] ?? '';
}

function approvalText(a: ApprovalView): string {
  return [
    `approval ${a.id}: ${a.state}`,
    `agent       ${a.agent}${a.member === null ? '' : ` (for ${a.member})`}`,
    `connection  ${a.connection}${a.server ? ` (${a.server.label})` : ''}`,
    `action      ${a.action} (${a.classification})`,
    `held        ${a.createdAt}, until ${a.expiresAt}`,
    ...(a.decidedBy ? [`decided     by ${a.decidedBy} at ${a.decidedAt}`] : []),
    ...(a.reason ? [`reason      ${a.reason}`] : []),
    `arguments   (sha256 ${a.argumentsHash})`,
    JSON.stringify(a.arguments, null, 2),
  ].join('\n');
}
