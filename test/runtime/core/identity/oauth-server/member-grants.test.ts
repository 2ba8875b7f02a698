/**
 * A client a member approves acts with the member's grants: the operator
 * grants the member (`grant --member`), not each agent a consent makes. The
 * consent page says, after sign-in and before Approve, what the client will
 * reach with each scope, or plainly that the member has no grants yet; the
 * approved client then lists the member's tools (narrowed by its scopes), or
 * none, and its calls are audited as its own agent, which names the member.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasonOf } from '../../../../../runtime/core/base/errors.ts';
import { grant, listGrants, revokeGrant } from '../../../../../runtime/core/operator/grants.ts';
import { addMember } from '../../../../../runtime/core/operator/members.ts';
import { mcpClient } from '../../../../support/gateway.ts';
import { openConsentPage, postConsent } from '../../../../support/oauth/consent-bot.ts';
import {
  MEMBER,
  type OAuthGateway,
  READ_TOOL,
  startOAuthGateway,
  WRITE_TOOL,
} from '../../../../support/oauth/oauth-gateway.ts';
import {
  authorizeUrl,
  exchange,
  pkce,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';

const LIN = { member: 'lin', password: 'another long password' } as const;

let running: OAuthGateway;
const ctx = () => running.gateway.running.gateway.operator('cli');

beforeAll(async () => {
  running = await startOAuthGateway();
  await addMember(ctx(), { workspace: 'default', name: LIN.member, password: LIN.password });
  await grant(ctx(), {
    workspace: 'default',
    member: MEMBER.member,
    connection: 'unikraft',
    scope: 'all',
  });
});
afterAll(() => running?.close());

/** Sign in on the consent page (Continue): the review page, and the form to approve from it. */
async function review(who: { member: string; password: string }, scope: string) {
  const client = await registerClient(running.url);
  const { verifier, challenge } = pkce();
  const page = await openConsentPage(
    authorizeUrl(running.url, client, { code_challenge: challenge, scope }),
  );
  if (!('fields' in page)) throw new Error(`no consent page: ${page.status}`);
  const reply = await postConsent(
    running.url,
    page,
    { ...who, decision: 'approve' },
    {
      fields: { decision: 'review' },
    },
  );
  const html = await reply.text();
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[match[1]!] = match[2]!;
  return { status: reply.status, html, fields, page, client, verifier };
}

/** Approve from the review page (no password again): the access token. */
async function approve(step: Awaited<ReturnType<typeof review>>): Promise<string> {
  const reply = await postConsent(
    running.url,
    { ...step.page, fields: step.fields },
    { member: '', password: '', decision: 'approve' },
  );
  expect(reply.status).toBe(303);
  const code = new URL(reply.headers.get('location')!).searchParams.get('code')!;
  const tokens = await exchange(running.url, step.client, { code, verifier: step.verifier });
  return String(tokens.body.access_token);
}

describe('the consent page, after sign-in and before Approve', () => {
  it.each([
    [
      'a member granted everything on one connection, asking to read and write',
      {
        who: MEMBER,
        scope: 'tools:read tools:write',
        has: [
          'It will reach read tools on 1 connection (unikraft).',
          'It will reach write tools on 1 connection (unikraft).',
        ],
        hasNot: ['id="no-grants"', 'name="password"'],
      },
    ],
    [
      'a member granted everything, asking for destructive tools no one enabled',
      {
        who: MEMBER,
        scope: 'tools:destructive',
        has: ['It will reach no destructive tools: none are granted to you.'],
        hasNot: ['id="no-grants"'],
      },
    ],
    [
      'a member with no grants',
      {
        who: LIN,
        scope: 'tools:read',
        has: [
          'id="no-grants"',
          'You have no grants yet',
          'portcullis grant --member lin &lt;connection&gt;',
          'It will reach no read tools',
        ],
        hasNot: ['name="password"'],
      },
    ],
  ])('for %s, says what the client will reach', async (_name, { who, scope, has, hasNot }) => {
    const step = await review(who, scope);
    expect(step.status).toBe(200);
    expect(step.html).toContain('value="approve"');
    for (const text of has) expect(step.html).toContain(text);
    for (const text of hasNot) expect(step.html).not.toContain(text);
  });

  it('refuses a wrong password on Continue, and shows no review', async () => {
    const step = await review(
      { member: MEMBER.member, password: 'not the password' },
      'tools:read',
    );
    expect(step.status).toBe(401);
    expect(step.html).not.toContain('id="signed-in"');
  });
});

describe('a client the member approved', () => {
  it("lists the member's tools its scopes allow, with no grant on its own agent", async () => {
    const token = await approve(await review(MEMBER, 'tools:read'));
    const client = await mcpClient(running.url, token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain(READ_TOOL);
    // A write needs tools:write: the step-up challenge, as HTTP 403.
    await expect(client.callTool({ name: WRITE_TOOL, arguments: {} })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('insufficient_scope'),
    });
    await client.close();
    // Its own agent holds no grant: the member's are what it uses.
    const store = running.gateway.running.gateway.store;
    const workspace = await store.workspaces.byName('default');
    const agents = (await store.agents.list(workspace!.id)).filter((a) => a.memberId !== null);
    for (const agent of agents) expect(await store.grants.forAgent(agent.id)).toEqual([]);
    // Each call is audited as the client's own agent, which names the member it acts for.
    const [call] = await store.audit.query({ action: WRITE_TOOL, limit: 1 });
    expect(call?.reason).toBe('insufficient_scope');
    const actor = agents.find((agent) => agent.id === call?.actorId);
    const members = await store.oauth.members.list(workspace!.id);
    expect(members.find((m) => m.id === actor?.memberId)?.name).toBe(MEMBER.member);
  });

  it('sees no tools when its member has no grants', async () => {
    const token = await approve(await review(LIN, 'tools:read'));
    const client = await mcpClient(running.url, token);
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });

  it("loses the member's tools when the member's grant is revoked", async () => {
    const token = await approve(await review(MEMBER, 'tools:read'));
    await revokeGrant(ctx(), {
      workspace: 'default',
      member: MEMBER.member,
      connection: 'unikraft',
    });
    const client = await mcpClient(running.url, token);
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
    await grant(ctx(), {
      workspace: 'default',
      member: MEMBER.member,
      connection: 'unikraft',
      scope: 'all',
    });
  });
});

describe('the grant verbs with a member', () => {
  it.each([
    [
      'both an agent and a member',
      { input: { agent: 'x', member: 'ada' }, code: 'invalid_input', field: 'agent' },
    ],
    ['neither an agent nor a member', { input: {}, code: 'invalid_input', field: 'agent' }],
    [
      'a member with a personal credential',
      {
        input: { member: 'ada', credential: 'personal' },
        code: 'invalid_input',
        field: 'credential',
      },
    ],
    [
      'a member that does not exist',
      { input: { member: 'nobody' }, code: 'not_found', field: 'name' },
    ],
  ])('refuse %s', async (_name, { input, code, field }) => {
    const error = await grant(ctx(), {
      workspace: 'default',
      connection: 'unikraft',
      ...input,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(reasonOf(error)).toBe(code);
    expect((error as { field?: string }).field).toBe(field);
  });

  it("lists a member's grant after the agents'", async () => {
    const rows = await listGrants(ctx(), { workspace: 'default' });
    expect(rows.filter((row) => 'member' in row)).toEqual([
      expect.objectContaining({ member: MEMBER.member, connection: 'unikraft', scope: 'all' }),
    ]);
  });
});
