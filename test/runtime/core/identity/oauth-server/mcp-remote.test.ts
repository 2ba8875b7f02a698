/**
 * mcp-remote (0.15.1, on Node 20): the stdio bridge local MCP clients use to
 * reach a remote server with OAuth. It meets the 401, discovers, registers,
 * prints the authorize URL, and waits on its own loopback callback; the
 * harness signs in on the consent page and follows the redirect to that
 * callback, as the browser would. Then tools are listed and called through
 * its stdio.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
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
} from '../../../../support/oauth/oauth-gateway.ts';

let running: OAuthGateway;
let bridge: McpRemoteBridge | undefined;

beforeAll(async () => {
  running = await startOAuthGateway();
});
afterAll(async () => {
  bridge?.close();
  await running?.close();
});

it('signs in through mcp-remote and lists and calls tools over its stdio', async () => {
  bridge = await startMcpRemote(
    `${running.url}/mcp`,
    async (url) => (await consent(url, MEMBER)).location,
  );
  await bridge.signedIn(1);
  expect(await running.grantConsentAgents()).toHaveLength(1);
  expect((await initializeOver(bridge)).result).toBeDefined();
  const list = (await bridge.request('tools/list', {})) as {
    result?: { tools: Array<{ name: string }> };
  };
  expect(list.result?.tools.map((tool) => tool.name)).toContain(READ_TOOL);
  const call = (await bridge.request('tools/call', { name: READ_TOOL, arguments: READ_ARGS })) as {
    result?: { isError?: boolean };
  };
  expect(call.result?.isError).toBeFalsy();
}, 60_000);
