/**
 * The `portcullis` command against the store of a running gateway: what it
 * changes, the server sees on its next request; a master key rotation by the
 * command leaves the running server able to open and to seal credentials,
 * and everything still opens after a restart.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../support/gateway.ts';
import { type PrismServer, startPrism } from '../../../support/prism.ts';
import { toolReasonOf } from '../../../support/reason.ts';
import { runPortcullis } from '../../../support/run-cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
const env = { PORTCULLIS_DATA_DIR: dataDir };
let prism: PrismServer;
let gateway: TestGateway;
let admin: ReturnType<typeof adminClient>;
let adminToken: string;

/** Calls `tool` as the agent: `ok`, or the reason code of its refusal. */
async function codeOf(key: string, tool = 'unikraft_get_user'): Promise<string> {
  const client = await mcpClient(gateway.url, key);
  try {
    return toolReasonOf(await callTool(client, tool)) ?? 'ok';
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  prism = await startPrism('unikraft', 'platform');
  gateway = await startTestGateway({ dataDir, upstreams: { unikraft: prism.url } });
  adminToken = gateway.adminToken!;
  admin = adminClient(gateway.url, adminToken);
  await admin('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: 'first-token',
  });
});

afterAll(async () => {
  await gateway?.close();
  await prism?.stop();
});

// Every step starts the command from source (tsx): six of them take a minute on a loaded machine.
describe('the portcullis command', { timeout: 180_000 }, () => {
  it('creates an agent and a grant the running server honours at once, and revokes it', async () => {
    const created = await runPortcullis(['agent', 'create', 'cli-bot', '--json'], env);
    expect(created.code).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    expect(key).toMatch(/^pck_/);
    expect((await runPortcullis(['grant', 'cli-bot', 'unikraft'], env)).code).toBe(0);
    expect(await codeOf(key)).toBe('ok');
    expect((await runPortcullis(['disable', 'unikraft', 'unikraft_get_user'], env)).code).toBe(0);
    expect(await codeOf(key)).toBe('action_disabled');
    expect((await runPortcullis(['enable', 'unikraft', 'unikraft_get_user'], env)).code).toBe(0);
    expect((await runPortcullis(['agent', 'revoke', 'cli-bot'], env)).code).toBe(0);
    await expect(codeOf(key)).rejects.toThrow(/Unauthorized/);
  });

  it('answers bad input with a code and the field to change, and a usage error with exit 2', async () => {
    const missing = await runPortcullis(['connect', 'unikraft', '--json'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toMatchObject({
      error: { code: 'invalid_input', field: '--token-env' },
    });
    const unknown = await runPortcullis(['grant', 'nobody', 'unikraft'], env);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('[not_found]')]);
    expect((await runPortcullis(['no-such-command'], env)).code).toBe(2);
  });

  it('lists actions as a table for people and as JSON for scripts', async () => {
    const table = await runPortcullis(['actions', 'unikraft', '--class', 'destructive'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/^TOOL\s+CLASSIFICATION\s+STATE\s+TITLE$/);
    const json = JSON.parse(
      (await runPortcullis(['actions', 'unikraft', '--json'], env)).stdout,
    ) as unknown[];
    expect(json).toHaveLength(90);
  });
});

describe('a master key rotation by the command while the server runs', { timeout: 180_000 }, () => {
  it('keeps every credential usable, new ones sealed under the new key, across a restart', async () => {
    const { key } = (await admin('POST', '/workspaces/default/agents', { name: 'keeper' })).body;
    await admin('POST', '/workspaces/default/grants', { agent: 'keeper', connection: 'unikraft' });
    expect(await codeOf(key)).toBe('ok');

    const rotated = await runPortcullis(['master-key', 'rotate', '--json'], env);
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ families: { credentials: 1 } });

    // Sealed by the running server right after a rotation it did not make (it has
    // opened nothing since, so only the store can tell it the key moved).
    const set = await admin('PUT', '/workspaces/default/connections/unikraft/credential', {
      credential: 'second-token',
    });
    expect(set.status).toBe(200);
    expect(await codeOf(key)).toBe('ok');

    await gateway.close();
    gateway = await startTestGateway({ dataDir, upstreams: { unikraft: prism.url } });
    admin = adminClient(gateway.url, adminToken);
    expect(await codeOf(key)).toBe('ok');
  });
});
