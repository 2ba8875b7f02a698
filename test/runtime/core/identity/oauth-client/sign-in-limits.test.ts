/**
 * Sign-ins waiting between their link and the callback are bounded: an
 * agent calling again before its person opened the link gets the same link
 * (one pending sign-in, one audit event per call); once a link is opened the
 * next call mints another, up to the cap per credential, then the call is
 * refused with `oauth_sign_ins_exceeded`, and an operator's sign-in for that
 * credential too. An operator's sign-in always starts afresh, and the
 * workspace's cap holds it back as well.
 */
import { describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../../../../runtime/core/identity/oauth-client/sign-in-limits.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { signIn } from '../../../../../runtime/core/operator/remote-sign-in.ts';
import { callTool, mcpClient } from '../../../../support/gateway.ts';
import { reasonOf } from '../../../../support/reason.ts';
import { SignInBrowser } from '../../../../support/remote/sign-in-browser.ts';
import { connectSignedIn, useSignInPeers } from '../../../../support/remote/signed-in.ts';

const peers = useSignInPeers({ tenant: 'limits' });

async function agentIdOf(ctx: OperatorContext, name: string): Promise<string> {
  const agent = (await ctx.store.agents.all()).find((a) => a.name === name);
  if (!agent) throw new Error(`no agent ${name}`);
  return agent.id;
}

async function pendingOf(ctx: OperatorContext, connectionId: string, agentId: string | null) {
  const workspaceId = (await ctx.store.connections.all()).find(
    (c) => c.id === connectionId,
  )!.workspaceId;
  const live = await ctx.store.upstreamOAuth.signIns.liveIn(workspaceId, new Date().toISOString());
  return live.filter((s) => s.connectionId === connectionId && s.agentId === agentId);
}

describe('personal sign-ins an agent asks for again and again', () => {
  it('answer the same link while it is unopened, a new one once it is opened, and stop at the cap', async () => {
    const { ctx } = peers;
    const { connectionId, key } = await connectSignedIn(ctx, peers.upstream, 'loop', {
      personal: true,
    });
    const agentId = await agentIdOf(ctx, 'loop-agent');
    const agent = await mcpClient(peers.gateway.url, key);
    const linkOfCall = async () => {
      const reply = await callTool(agent, 'loop__get_weather', { city: 'Oslo' });
      return reply.structuredContent?.error;
    };

    const links: string[] = [];
    for (let i = 0; i < 4; i++) {
      const error = await linkOfCall();
      expect(error?.code).toBe('oauth_sign_in_required');
      links.push(String(error?.detail?.signInUrl));
    }
    expect(new Set(links).size).toBe(1);
    expect(await pendingOf(ctx, connectionId, agentId)).toHaveLength(1);
    const calls = await ctx.store.audit.query({ connectionId, ascending: true });
    expect(
      calls.filter((e) => e.action === 'loop__get_weather').map((e) => [e.decision, e.reason]),
    ).toEqual(Array(4).fill(['denied', 'oauth_sign_in_required']));

    // Opened (bound to a browser): the next call mints another link, up to the cap.
    await new SignInBrowser().go(links[0]!);
    const minted = [links[0]!];
    for (let i = 1; i < SIGN_IN_LIMITS.perCredential; i++) {
      const error = await linkOfCall();
      const link = String(error?.detail?.signInUrl);
      expect(minted).not.toContain(link);
      minted.push(link);
      await new SignInBrowser().go(link);
    }
    expect(await pendingOf(ctx, connectionId, agentId)).toHaveLength(SIGN_IN_LIMITS.perCredential);
    const refused = await linkOfCall();
    expect(refused).toMatchObject({
      code: 'oauth_sign_ins_exceeded',
      detail: { limit: 'credential' },
    });
    expect(refused?.detail?.signInUrl).toBeUndefined();
    // An operator's sign-in for the same credential meets the same cap.
    expect(
      await reasonOf(
        signIn(ctx, { workspace: 'default', connection: 'loop', agent: 'loop-agent' }),
      ),
    ).toMatchObject({ code: 'oauth_sign_ins_exceeded' });
    expect(await pendingOf(ctx, connectionId, agentId)).toHaveLength(SIGN_IN_LIMITS.perCredential);
    const after = await ctx.store.audit.query({ connectionId, ascending: true });
    expect(
      after
        .filter((e) => e.action === 'loop__get_weather')
        .slice(-1)
        .map((e) => [e.decision, e.reason]),
    ).toEqual([['denied', 'oauth_sign_ins_exceeded']]);
    await agent.close();
  });
});

describe("an operator's sign-ins", () => {
  it('start afresh every time, and stop at the workspace cap', async () => {
    const { ctx } = peers;
    const { connectionId } = await connectSignedIn(ctx, peers.upstream, 'shared');
    const first = await signIn(ctx, { workspace: 'default', connection: 'shared' });
    const second = await signIn(ctx, { workspace: 'default', connection: 'shared' });
    expect(second.link).not.toBe(first.link);
    expect(await pendingOf(ctx, connectionId, null)).toHaveLength(2);

    // Fill the workspace up to its cap with other credentials' sign-ins.
    const [pending] = await pendingOf(ctx, connectionId, null);
    const workspaceId = pending!.workspaceId;
    const live = await ctx.store.upstreamOAuth.signIns.liveIn(
      workspaceId,
      new Date().toISOString(),
    );
    const fillers: string[] = [];
    for (let i = live.length; i < SIGN_IN_LIMITS.perWorkspace; i++) {
      fillers.push(`filler-${i}`);
      await ctx.store.upstreamOAuth.signIns.create({
        ...pending!,
        stateHash: `filler-${i}`,
        agentId: `agt_filler_${i}`,
      });
    }
    try {
      expect(
        await reasonOf(signIn(ctx, { workspace: 'default', connection: 'shared' })),
      ).toMatchObject({ code: 'oauth_sign_ins_exceeded' });
      expect(await pendingOf(ctx, connectionId, null)).toHaveLength(2);
    } finally {
      // The workspace's cap is the other tests' too: the fillers go.
      for (const stateHash of fillers) await ctx.store.upstreamOAuth.signIns.take(stateHash);
    }
  });
});
