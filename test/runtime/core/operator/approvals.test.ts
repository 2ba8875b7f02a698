/**
 * The approvers' verbs on the real gateway's store: a member may not approve
 * a call made for them unless PORTCULLIS_APPROVAL_SELF=allow (another member
 * may, an admin token may); an approval is decided once (two approvers at
 * the same moment: one wins, the other is a conflict); another workspace's
 * approval is not found; a denial's reason is kept and audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../../../runtime/core/model/approvals.ts';
import {
  approveApproval,
  denyApproval,
  showApproval,
} from '../../../../runtime/core/operator/approvals.ts';
import { createWorkspace } from '../../../../runtime/core/operator/workspaces.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';
import { reasonOf } from '../../../support/reason.ts';
import { anApproval } from '../../../support/store-fixtures.ts';

let strict: TestGateway;
let lenient: TestGateway;
let serial = 0;

beforeAll(async () => {
  [strict, lenient] = await Promise.all([
    startTestGateway(),
    startTestGateway({ environment: { PORTCULLIS_APPROVAL_SELF: 'allow' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([strict?.close(), lenient?.close()]);
});

/** A pending approval of a call an agent made for the member `mem_self`. */
async function held(gateway: TestGateway, workspace = 'default'): Promise<Approval> {
  const { store } = gateway.running.gateway;
  const ws = await store.workspaces.byName(workspace);
  const now = Date.now();
  const approval = anApproval({
    id: `apr_test_${++serial}`,
    workspaceId: ws!.id,
    agentId: 'agt_for_member',
    memberId: 'mem_self',
    connectionId: 'con_x',
    action: 'x_delete',
    argumentsHash: 'sha256:0',
    arguments: '{"id":"1","password":"hunter2"}',
    shownArguments: '{"id":"1","password":"(write-only, not shown)"}',
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 600_000).toISOString(),
  });

  await store.approvals.create(approval);
  return approval;
}

const as = (gateway: TestGateway, actor: string) => gateway.running.gateway.operator(actor);

describe('approving', () => {
  it('refuses a member their own call, lets another member and an admin token approve', async () => {
    const mine = await held(strict);
    const input = { workspace: 'default', approval: mine.id };
    expect(await reasonOf(approveApproval(as(strict, 'member:mem_self'), input))).toEqual({
      code: 'approval_self_refused',
      field: 'approval',
    });
    expect((await approveApproval(as(strict, 'member:mem_other'), input)).state).toBe('approved');
    const again = await held(strict);
    expect(
      (await approveApproval(as(strict, 'admin:tok'), { workspace: 'default', approval: again.id }))
        .decidedBy,
    ).toBe('admin:tok');
  });

  it('lets a member approve their own call where PORTCULLIS_APPROVAL_SELF=allow', async () => {
    const mine = await held(lenient);
    const input = { workspace: 'default', approval: mine.id };
    expect((await approveApproval(as(lenient, 'member:mem_self'), input)).state).toBe('approved');
  });

  it('decides an approval once: of two approvers at the same moment one wins', async () => {
    const approval = await held(strict);
    const input = { workspace: 'default', approval: approval.id };
    const outcomes = await Promise.allSettled([
      approveApproval(as(strict, 'member:mem_a'), input),
      approveApproval(as(strict, 'member:mem_b'), input),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(await reasonOf(Promise.reject(refused.reason))).toEqual({
      code: 'conflict',
      field: 'approval',
    });
  });

  it('denies with the reason kept, an approved call not yet run too', async () => {
    const approval = await held(strict);
    const input = { workspace: 'default', approval: approval.id };
    await approveApproval(as(strict, 'cli'), input);
    const denied = await denyApproval(as(strict, 'cli'), { ...input, reason: 'changed my mind' });
    expect(denied).toMatchObject({ state: 'denied', reason: 'changed my mind' });
    expect(await reasonOf(approveApproval(as(strict, 'cli'), input))).toEqual({
      code: 'conflict',
      field: 'approval',
    });
  });

  it('shows the masked arguments, never the ones it runs with', async () => {
    const approval = await held(strict);
    const view = await showApproval(as(strict, 'cli'), {
      workspace: 'default',
      approval: approval.id,
    });
    expect(view.arguments).toEqual({ id: '1', password: '(write-only, not shown)' });
    expect(JSON.stringify(view)).not.toContain('hunter2');
  });

  it("finds no other workspace's approval", async () => {
    await createWorkspace(as(strict, 'cli'), { name: 'elsewhere' });
    const theirs = await held(strict, 'elsewhere');
    expect(
      await reasonOf(
        approveApproval(as(strict, 'cli'), { workspace: 'default', approval: theirs.id }),
      ),
    ).toEqual({ code: 'not_found', field: 'approval' });
  });
});
