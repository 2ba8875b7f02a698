/**
 * mcp-remote with the workspace's default scopes, a member who holds grants
 * and approves fewer scopes than asked: reads go through at once, and a write
 * meets the 403 `insufficient_scope` challenge, from which mcp-remote steps up
 * by itself (a second authorize URL asking for the union of scopes), the
 * member approves the write on the consent page, and the same stdio request
 * is answered with the write's result. A member without grants sees no tools.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { addMember } from '../../../../../runtime/core/operator/members.ts';
import { consent } from '../../../../support/oauth/consent-bot.ts';
import {
  initializeOver,
  type McpRemoteBridge,
  startMcpRemote,
} from '../../../../support/oauth/mcp-remote-bridge.ts';
import {
  MEMBER,
  type OAuthGateway,
  READ_ARGS,
  READ_TOOL,
  startOAuthGateway,
  WRITE_ARGS,
  WRITE_TOOL,
} from '../../../../support/oauth/oauth-gateway.ts';

const LIN = { member: 'lin', password: 'another long password' } as const;

let running: OAuthGateway;
let bridge: McpRemoteBridge | undefined;

beforeAll(async () => {
  running = await startOAuthGateway({
    environment: { PORTCULLIS_OAUTH_DEFAULT_SCOPES: 'tools:read tools:write' },
  });
  const operator = running.gateway.running.gateway.operator('cli');
  await addMember(operator, { workspace: 'default', name: LIN.member, password: LIN.password });
  await grant(operator, {
    workspace: 'default',
    member: MEMBER.member,
    connection: 'unikraft',
    scope: 'all',
  });
});
afterEach(() => {
  bridge?.close();
  bridge = undefined;
});
afterAll(() => running?.close());

type ToolsReply = { result?: { tools: Array<{ name: string }> } };
type CallReply = {
  result?: { isError?: boolean; structuredContent?: { error?: { code: string } } };
  error?: { message: string };
};

describe('mcp-remote and a member with grants', () => {
  it('asks for the default scopes, works with the fewer approved, and steps up for a write', async () => {
    const asked: string[] = [];
    bridge = await startMcpRemote(`${running.url}/mcp`, async (url) => {
      const scope = new URL(url).searchParams.get('scope') ?? '';
      asked.push(scope);
      // First sign-in: reads only, though read and write were asked; then everything asked.
      const keep = asked.length === 1 ? ['tools:read'] : scope.split(' ');
      return (await consent(url, { ...MEMBER, scopes: keep })).location;
    });
    await bridge.signedIn(1);
    expect(asked).toEqual(['tools:read tools:write']);
    expect((await initializeOver(bridge)).result).toBeDefined();
    const read = (await bridge.request('tools/call', {
      name: READ_TOOL,
      arguments: READ_ARGS,
    })) as CallReply;
    expect(read.result?.isError).toBeFalsy();

    const write = (await bridge.request('tools/call', {
      name: WRITE_TOOL,
      arguments: WRITE_ARGS,
    })) as CallReply;
    expect(asked).toEqual(['tools:read tools:write', 'tools:read tools:write']);
    expect(write.error, bridge.log()).toBeUndefined();
    expect(write.result?.isError).toBeFalsy();
    // Both calls are audited under the one agent of this member's client, the write refused once.
    const store = running.gateway.running.gateway.store;
    const writes = await store.audit.query({ action: WRITE_TOOL, limit: 10 });
    expect(writes.map((event) => event.reason ?? event.outcome)).toEqual([
      'ok',
      'insufficient_scope',
    ]);
  }, 90_000);
});

describe('mcp-remote and a member without grants', () => {
  it('signs in and sees no tools', async () => {
    bridge = await startMcpRemote(
      `${running.url}/mcp`,
      async (url) => (await consent(url, LIN)).location,
    );
    await bridge.signedIn(1);
    expect((await initializeOver(bridge)).result).toBeDefined();
    const list = (await bridge.request('tools/list', {})) as ToolsReply;
    expect(list.result?.tools).toEqual([]);
  }, 60_000);
});
