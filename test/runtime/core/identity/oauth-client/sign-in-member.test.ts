/**
 * A personal sign-in for the agent of a member of Portcullis's own
 * authorization server (an agent a consent made) is that member's only: its
 * link asks for the member's session first, naming the workspace, the
 * connection and the agent it connects; another member's session is refused
 * with `oauth_sign_in_wrong_member` and nothing is bound or stored (the
 * account-linking CSRF: an attacker sending their own agent's link to a
 * victim); the member's own session goes on to oidc-provider, and the
 * agent's call runs after. An agent made by an operator keeps the browser
 * binding alone.
 */
import { describe, expect, it } from 'vitest';
import { stateHash } from '../../../../../runtime/core/identity/oauth-client/upstream-sign-in.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { addMember } from '../../../../../runtime/core/operator/members.ts';
import { callTool, mcpClient } from '../../../../support/gateway.ts';
import { consent } from '../../../../support/oauth/consent-bot.ts';
import {
  authorizeUrl,
  exchange,
  pkce,
  registerClient,
} from '../../../../support/oauth/raw-flow.ts';
import {
  authorizeAt,
  continueLink,
  type Page,
  SignInBrowser,
} from '../../../../support/remote/sign-in-browser.ts';
import { connectSignedIn, useSignInPeers } from '../../../../support/remote/signed-in.ts';

const peers = useSignInPeers({ tenant: 'members' });
const ADA = { member: 'ada-m', password: 'correct horse battery staple' } as const;
const MALLORY = { member: 'mallory-m', password: 'another long enough passphrase' } as const;

/** An access token for the member's own agent, through the authorization server's real flow. */
async function memberAgent(member: { member: string; password: string }) {
  const url = peers.gateway.url;
  const client = await registerClient(url);
  const { verifier, challenge } = pkce();
  const { location } = await consent(
    authorizeUrl(url, client, { code_challenge: challenge, scope: 'tools:read tools:write' }),
    member,
  );
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code: ${location.search}`);
  const reply = await exchange(url, client, { code, verifier });
  const token = String(reply.body.access_token);
  const store = peers.ctx.store;
  const workspace = (await store.workspaces.byName('default'))!;
  const members = await store.oauth.members.list(workspace.id);
  const memberId = members.find((m) => m.name === member.member)!.id;
  const made = (await store.oauth.consents.list(workspace.id)).find(
    (c) => c.memberId === memberId,
  )!;
  const agent = (await store.agents.byId(workspace.id, made.agentId))!;
  return { token, agent, workspaceId: workspace.id };
}

/** The link an agent's call answers with, for its person. */
async function linkOfCall(token: string, tool: string): Promise<string> {
  const client = await mcpClient(peers.gateway.url, token);
  const reply = await callTool(client, tool, { city: 'Oslo' });
  await client.close();
  expect(reply.structuredContent?.error?.code).toBe('oauth_sign_in_required');
  return String(reply.structuredContent?.error?.detail?.signInUrl);
}

function hiddenFields(page: Page): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of page.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[m[1]!] = m[2]!;
  return fields;
}

/** Opens the link and signs in as `member` on its page: the page that follows. */
async function openAsMember(
  browser: SignInBrowser,
  link: string,
  member: { member: string; password: string },
): Promise<Page> {
  const form = await browser.go(link);
  expect(form.status).toBe(200);
  expect(form.html).toContain('name="password"');
  return browser.request(new URL('/connect/oauth/sign-in', link).href, {
    form: { ...hiddenFields(form), action: 'sign-in', ...member },
  });
}

describe("a personal sign-in for a member's agent", () => {
  it("is refused to another member's session, binding nothing, and works in the member's own", async () => {
    const { ctx } = peers;
    for (const member of [ADA, MALLORY])
      await addMember(ctx, {
        workspace: 'default',
        name: member.member,
        password: member.password,
      });
    await connectSignedIn(ctx, peers.upstream, 'linked');
    const ada = await memberAgent(ADA);
    await grant(ctx, {
      workspace: 'default',
      agent: ada.agent.name,
      connection: 'linked',
      scope: 'all',
      credential: 'personal',
    });
    const link = await linkOfCall(ada.token, 'linked__get_weather');
    const state = new URL(link).searchParams.get('state')!;
    const pending = async () => ctx.store.upstreamOAuth.signIns.byState(stateHash(state));
    const connectionId = (await ctx.store.connections.all()).find((c) => c.name === 'linked')!.id;
    const adaTokens = async () =>
      (await ctx.store.upstreamOAuth.tokens.forConnection(connectionId)).filter(
        (t) => t.agentId === ada.agent.id && t.sealed !== null,
      );

    // Without a session: the member sign-in, naming what the link connects.
    const stranger = new SignInBrowser();
    const form = await stranger.go(link);
    expect(form.status).toBe(200);
    expect(form.html).toContain('name="password"');
    expect(form.html).not.toContain('id="continue"');
    expect(form.html).toContain('<b id="workspace">default</b>');
    expect(form.html).toContain('<b id="connection">linked</b>');
    expect(form.html).toContain(`<b id="agent">${ada.agent.name}</b>`);
    expect(form.html).toContain(`<b id="member">${ADA.member}</b>`);
    expect((await pending())?.browserHash).toBeNull();

    // Another member's session: refused, on signing in and on opening the link again.
    const mallory = new SignInBrowser();
    const refused = await openAsMember(mallory, link, MALLORY);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('(oauth_sign_in_wrong_member)');
    expect(refused.html).not.toContain('id="continue"');
    const again = await mallory.go(link);
    expect(again.status).toBe(403);
    expect(again.html).toContain('(oauth_sign_in_wrong_member)');
    expect((await pending())?.browserHash).toBeNull();
    expect(await adaTokens()).toEqual([]);

    // The member's own session: on to the authorization server, and back connected.
    const own = new SignInBrowser();
    const page = await openAsMember(own, link, ADA);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<b id="agent">${ada.agent.name}</b>`);
    const back = await authorizeAt(own, continueLink(page), 'ada-upstream');
    const done = await own.go(back);
    expect(done.html).toContain('<h1>Connected</h1>');
    expect(await adaTokens()).toHaveLength(1);
    const client = await mcpClient(peers.gateway.url, ada.token);
    const reply = await callTool(client, 'linked__get_weather', { city: 'Oslo' });
    await client.close();
    expect(reply.isError).toBeFalsy();
    expect(reply.structuredContent).toEqual({ city: 'Oslo', sky: 'sunny' });
  });

  it("keeps an operator-made agent's link bound to the browser alone, and names what it connects", async () => {
    const { key } = await connectSignedIn(peers.ctx, peers.upstream, 'keyed', { personal: true });
    const link = await linkOfCall(key, 'keyed__get_weather');
    const page = await new SignInBrowser().go(link);
    expect(page.status).toBe(200);
    expect(page.html).toContain('id="continue"');
    expect(page.html).toContain('<b id="workspace">default</b>');
    expect(page.html).toContain('<b id="connection">keyed</b>');
    expect(page.html).toContain('<b id="agent">keyed-agent</b>');
    // Opened in one browser already: another browser is refused.
    const elsewhere = await new SignInBrowser().go(link);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.html).toContain('(oauth_state_invalid)');
  });
});
