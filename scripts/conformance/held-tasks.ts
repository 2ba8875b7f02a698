/**
 * The tasks extension's scenarios through Portcullis with the fixture's task
 * tools set to `ask` (docs/approvals.md): the suite's fixtures connected in a
 * workspace of their own, every tool the suite lets become a held task
 * (`HELD_TASK_TOOLS`) held for approval, and an approver that approves each
 * held call as it appears, through the operator verbs the admin API and the
 * console call. A held call answers its task at once; approved, it runs
 * upstream, and its task completes, fails, or follows the task the fixture
 * starts (what it asks, its answers, its cancellation), as the suite expects
 * of any task.
 */
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { approveApproval, listApprovals } from '../../runtime/core/operator/approvals.ts';
import type { OperatorContext } from '../../runtime/core/operator/context.ts';
import { createWorkspace } from '../../runtime/core/operator/workspaces.ts';
import { FIXTURE_CONNECTION, startFixtureTargets } from './fixture-upstream.ts';
import { type Counts, isClean, judgedTaskScenarios, runScenarios } from './run-conformance.ts';

/**
 * The fixture's task-supporting tools. Not `greet` (the suite requires it to
 * answer at once, never a task) nor `test_tool_with_task` (its first round
 * must ask for input before any task exists): a held call is a task.
 */
export const HELD_TASK_TOOLS = [
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
] as const;

export interface HeldTaskRun {
  /** Each judged tasks scenario's counts. */
  counts: Map<string, Counts>;
  /** How many held calls the approver approved. */
  approved: number;
}

/** `gatewayUrl` is the gateway's origin; it must allow loopback upstreams (the development policy). */
export async function runHeldTaskScenarios(
  ctx: OperatorContext,
  gatewayUrl: string,
  workspace = 'held-tasks',
): Promise<HeldTaskRun> {
  await createWorkspace(ctx, { name: workspace });
  const fixture = await startFixtureTargets(ctx, gatewayUrl, workspace);
  let approving = true;
  let approved = 0;
  const approver = (async () => {
    while (approving) {
      for (const { id } of await listApprovals(ctx, { workspace })) {
        // One decided meanwhile (it expired) is the scenario's to judge, not the approver's.
        const done = await approveApproval(ctx, { workspace, approval: id }).then(
          () => true,
          () => false,
        );
        if (done) approved += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    await changeActions(ctx, 'ask', {
      workspace,
      connection: FIXTURE_CONNECTION,
      actions: [...HELD_TASK_TOOLS],
    });
    const counts = await runScenarios(fixture.through, judgedTaskScenarios());
    return { counts, approved };
  } finally {
    approving = false;
    await approver;
    await fixture.close();
  }
}

/** Whether every judged tasks scenario ran and passed clean, and calls were held and approved. */
export function heldTasksOk(run: HeldTaskRun): boolean {
  return (
    run.approved > 0 &&
    judgedTaskScenarios().every((scenario) => {
      const counts = run.counts.get(scenario);
      return counts !== undefined && isClean(counts);
    })
  );
}

/** The table: one row per judged tasks scenario, then each failure's problems. */
export function formatHeldTaskReport(run: HeldTaskRun): string {
  const scenarios = judgedTaskScenarios();
  const width = Math.max(...scenarios.map((s) => s.length));
  const lines = [
    `MCP conformance, tasks scenarios through Portcullis with ${HELD_TASK_TOOLS.join(', ')} held for approval (2026-07-28)`,
    `${'verdict'.padEnd(7)}  ${'scenario'.padEnd(width)}  passed/failed`,
  ];
  for (const scenario of scenarios) {
    const counts = run.counts.get(scenario);
    const verdict = counts !== undefined && isClean(counts) ? 'PASS' : 'FAIL';
    const cell =
      counts === undefined
        ? 'not run'
        : `${counts.passed}/${counts.failed}${counts.warnings ? ` w${counts.warnings}` : ''}`;
    lines.push(`${verdict.padEnd(7)}  ${scenario.padEnd(width)}  ${cell}`);
  }
  for (const scenario of scenarios) {
    for (const p of run.counts.get(scenario)?.problems ?? [])
      lines.push(`  ${scenario}: ${p.status} ${p.id}: ${p.message}`);
  }
  const passed = scenarios.filter((s) => {
    const counts = run.counts.get(s);
    return counts !== undefined && isClean(counts);
  }).length;
  lines.push(
    `${passed} of ${scenarios.length} judged tasks scenarios pass held; ${run.approved} held calls approved${heldTasksOk(run) ? '' : ': some FAIL'}`,
  );
  return lines.join('\n');
}
