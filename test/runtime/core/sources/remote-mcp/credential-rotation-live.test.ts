/**
 * `portcullis credential set` run as its own process while a gateway serves
 * a connection with a header credential: the running server learns of it by
 * the store's revision (as it learns of a disconnect), ends its old upstream
 * session at the real SDK server with the old header before any call, and
 * the agent's next call goes out in a new session carrying the new header;
 * the server holds one session entry for the connection throughout.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import {
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import { startUpstream, type Upstream } from '../../../../support/remote/upstream-servers.ts';
import { runPortcullis } from '../../../../support/run-cli.ts';

const OLD_KEY = 'key-old-rotation-0001';
const NEW_KEY = 'key-new-rotation-0002';

let gateway: TestGateway;
let ctx: OperatorContext;
let upstream: Upstream;
let client: Client;

beforeAll(async () => {
  [gateway, upstream] = await Promise.all([
    startTestGateway({ environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' } }),
    // Both keys pass while the rotation happens (the old one ends its own session).
    startUpstream('stateful', { requireHeader: { name: 'X-Api-Key', value: [OLD_KEY, NEW_KEY] } }),
  ]);
  ctx = gateway.running.gateway.operator('test');
  await connectUrl(ctx, {
    workspace: 'default',
    url: upstream.url,
    name: 'rotated',
    headers: { 'X-Api-Key': OLD_KEY },
  });
  await changeActions(ctx, 'review', { workspace: 'default', connection: 'rotated', all: true });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'caller' });
  await grant(ctx, { workspace: 'default', agent: 'caller', connection: 'rotated', scope: 'all' });
  client = await mcpClient(gateway.url, key);
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await upstream?.close();
});

/** The header every request of the session carried. */
const keysOf = (sessionId: string) =>
  upstream.seenHeaders.filter((h) => h['mcp-session-id'] === sessionId).map((h) => h['x-api-key']);

describe('portcullis credential set against a running gateway', () => {
  it('ends the old upstream session, and the next call opens a new one with the new header', async () => {
    expect((await callTool(client, 'rotated__get_weather', { city: 'Oslo' })).isError).toBeFalsy();
    const old = upstream.calls.at(-1)!.sessionId!;
    expect(new Set(keysOf(old))).toEqual(new Set([OLD_KEY]));
    const sessions = ctx.remote!.sessions;
    const live = sessions.size;

    const run = await runPortcullis(
      ['credential', 'set', 'rotated', '--credential-env', 'X-Api-Key=ROTATED_KEY'],
      {
        PORTCULLIS_DATA_DIR: gateway.dataDir,
        PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
        ROTATED_KEY: NEW_KEY,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    // Learned by the revision, before any call: the old session ended, with the old header.
    await expect.poll(() => upstream.ended, { timeout: 10_000 }).toContain(old);
    expect(keysOf(old).at(-1)).toBe(OLD_KEY);

    expect(
      (await callTool(client, 'rotated__get_weather', { city: 'Bergen' })).isError,
    ).toBeFalsy();
    const next = upstream.calls.at(-1)!.sessionId!;
    expect(next).not.toBe(old);
    expect(new Set(keysOf(next))).toEqual(new Set([NEW_KEY]));
    expect(sessions.size).toBe(live);
  });
});
