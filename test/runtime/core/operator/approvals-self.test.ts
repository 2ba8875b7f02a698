/**
 * A member may not approve a call made for them (docs/approvals.md): a real
 * OAuth member (ada, an operator of the workspace) signs in through our
 * authorization server, her client's call to an `ask` action is held for
 * her, and her own approval in the console is `approval_self_refused`,
 * another operator's is not; on a gateway with
 * `PORTCULLIS_APPROVAL_SELF=allow` she approves it herself, and the call runs
 * once, with her token's scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { addMember, setMemberRole } from '../../../../runtime/core/operator/members.ts';
import { consoleClient } from '../../../support/console.ts';
import { callTool, mcpClient } from '../../../support/gateway.ts';
import {
  MEMBER,
  type OAuthGateway,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../support/oauth/oauth-gateway.ts';
import { codeFor, exchange, registerClient } from '../../../support/oauth/raw-flow.ts';
import { toolReasonOf } from '../../../support/reason.ts';

const OTHER = { name: 'otis', password: 'another horse battery staple' };

async function openGateway(environment: Record<string, string>): Promise<OAuthGateway> {
  const gateway = await startOAuthGateway({
    environment: { PORTCULLIS_APPROVAL_WAIT_MS: '0', ...environment },
  });
  const ctx = gateway.gateway.running.gateway.operator('cli');
  await setMemberRole(ctx, { workspace: 'default', name: MEMBER.member, role: 'operator' });
  await addMember(ctx, { workspace: 'default', ...OTHER, role: 'operator' });
  await changeActions(ctx, 'ask', {
    workspace: 'default',
    connection: 'unikraft',
    actions: [WRITE_TOOL],
  });
  return gateway;
}

/** Ada's client signs in with her, is granted, and calls the `ask` action: the held approval's id. */
async function heldForAda(gateway: OAuthGateway): Promise<string> {
  const client = await registerClient(gateway.url);
  const tokens = await exchange(
    gateway.url,
    client,
    await codeFor(gateway.url, client, { scope: 'tools:read tools:write' }),
  );
  await gateway.grantConsentAgents();
  const mcp = await mcpClient(gateway.url, String(tokens.body.access_token));
  try {
    const reply = await callTool(mcp, WRITE_TOOL, WRITE_ARGS);
    expect(toolReasonOf(reply)).toBe('approval_pending');
    return reply.structuredContent?.error?.detail?.approval as string;
  } finally {
    await mcp.close();
  }
}

async function executed(gateway: OAuthGateway, id: string) {
  const events = await gateway.gateway.running.gateway.store.audit.query({ limit: 200 });
  return events.filter(
    (e) => e.subject === `approval:${id}` && e.action === WRITE_TOOL && e.upstreamHost !== null,
  );
}

/** Waits until the approval's call has run (the test's timeout bounds it); exactly once. */
async function ranOnce(gateway: OAuthGateway, id: string): Promise<void> {
  while ((await executed(gateway, id)).length === 0)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await executed(gateway, id)).toHaveLength(1);
}

let refusing: OAuthGateway;
let allowing: OAuthGateway;

beforeAll(async () => {
  [refusing, allowing] = await Promise.all([
    openGateway({}),
    openGateway({ PORTCULLIS_APPROVAL_SELF: 'allow' }),
  ]);
});

afterAll(async () => {
  await Promise.all([refusing?.close(), allowing?.close()]);
});

describe('approving a call made for yourself', () => {
  it('is refused approval_self_refused by default; another operator approves it', async () => {
    const id = await heldForAda(refusing);
    const ada = consoleClient(refusing.url);
    expect((await ada.signIn(MEMBER.member, MEMBER.password)).status).toBe(200);
    const shown = await ada.call('GET', `/approvals/${id}`);
    expect(shown.body).toMatchObject({ id, state: 'pending', action: WRITE_TOOL });
    const refused = await ada.call('POST', `/approvals/${id}/approve`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('approval_self_refused');
    expect((await ada.call('GET', `/approvals/${id}`)).body.state).toBe('pending');
    const otis = consoleClient(refusing.url);
    expect((await otis.signIn(OTHER.name, OTHER.password)).status).toBe(200);
    expect((await otis.call('POST', `/approvals/${id}/approve`, {})).status).toBe(200);
    await ranOnce(refusing, id);
  });

  it('is allowed with PORTCULLIS_APPROVAL_SELF=allow: the call runs once, for her client', async () => {
    const id = await heldForAda(allowing);
    const ada = consoleClient(allowing.url);
    expect((await ada.signIn(MEMBER.member, MEMBER.password)).status).toBe(200);
    const approved = await ada.call('POST', `/approvals/${id}/approve`, {});
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id, state: 'approved' });
    await ranOnce(allowing, id);
  });
});
