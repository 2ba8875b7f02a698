/**
 * What the operator's record says, through the `portcullis` command against
 * the store of a running gateway: admin tokens made, listed and revoked (the
 * API refuses a revoked one at once), a grant widened with one command, a
 * write off by default saying how to enable it, and an audit log that reads
 * well: agents by name, failed attempts too, revoked agents' grants marked,
 * and the address a development override actually called.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { runPortcullisHere } from '../../../support/run-cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-record-'));
let upstream: Server;
let origin: string;
let gateway: TestGateway;
let env: Record<string, string>;

async function portcullis(...args: string[]) {
  const outcome = await runPortcullisHere(args, env);
  return outcome;
}

async function json<T = unknown>(...args: string[]): Promise<T> {
  const { code, stdout, stderr } = await portcullis(...args, '--json');
  expect([code, stderr]).toEqual([0, '']);
  return JSON.parse(stdout) as T;
}

/** `audit --json` prints JSON lines, newest first. */
async function audit(...args: string[]): Promise<Array<Record<string, unknown>>> {
  const { code, stdout, stderr } = await portcullis('audit', ...args, '--json');
  expect([code, stderr]).toEqual([0, '']);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  // Refuses the token `refused`, answers everything else.
  upstream = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.headers.authorization === 'Bearer refused') {
      res.statusCode = 401;
      res.end('{"status":"error"}');
      return;
    }
    res.end('{"status":"success"}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startTestGateway({ dataDir, upstreams: { unikraft: origin } });
  env = {
    PORTCULLIS_DATA_DIR: dataDir,
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=${origin}`,
    GOOD: 'accepted',
    BAD: 'refused',
  };
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('admin tokens', () => {
  it('are made, listed and revoked with the command, each audited, and a revoked one is refused', async () => {
    const created = await json<{ id: string; token: string }>('admin-token', 'create');
    expect(created.token).toMatch(/^pca_/);
    const admin = adminClient(gateway.url, created.token);
    expect((await admin('GET', '/workspaces')).status).toBe(200);

    const listed = await json<Array<{ id: string }>>('admin-token', 'list');
    expect(listed.map((t) => t.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const revoked = await portcullis('admin-token', 'revoke', created.id.slice(0, 8));
    expect([revoked.code, revoked.stdout]).toEqual([0, `revoked admin token ${created.id}\n`]);
    expect((await admin('GET', '/workspaces')).status).toBe(401);

    const events = await audit('--all-workspaces', '--action', 'admin_token.revoke');
    expect(events).toEqual([expect.objectContaining({ subject: created.id })]);
    expect(await audit('--all-workspaces', '--action', 'admin_token.create')).toEqual([
      expect.objectContaining({ subject: created.id, actorName: 'cli' }),
    ]);
  });
});

describe('the operator record', () => {
  /** The connection `unikraft`, connected once with a credential the provider accepts. */
  let connection: Promise<void> | undefined;
  const connected = () => {
    connection ??= portcullis('connect', 'unikraft', '--token-env', 'GOOD').then((run) => {
      expect(run.code).toBe(0);
    });
    return connection;
  };

  /** An agent of the test's own, granted all of `unikraft`, that has called a write. */
  async function agentThatWrote(name: string): Promise<void> {
    await connected();
    const { key } = await json<{ key: string }>('agent', 'create', name);
    expect((await portcullis('grant', name, 'unikraft', '--scope', 'all')).code).toBe(0);
    const admin = adminClient(gateway.url, gateway.adminToken!);
    await admin('POST', '/workspaces/default/connections/unikraft/actions/enable', {
      actions: ['unikraft_create_volume'],
    });
    const client = await mcpClient(gateway.url, key);
    try {
      const wrote = await callTool(client, 'unikraft_create_volume', {
        body: { name: 'v', size_mb: 1 },
      });
      expect(wrote.isError).toBeFalsy();
    } finally {
      await client.close();
      // Writes are off by default again, as the test that widens a grant expects them.
      await admin('POST', '/workspaces/default/connections/unikraft/actions/disable', {
        actions: ['unikraft_create_volume'],
      });
    }
  }

  it('audits a connect whose verification failed, without blaming anything but the credential it refused', async () => {
    const failed = await portcullis(
      'connect',
      'unikraft',
      '--name',
      'refused',
      '--token-env',
      'BAD',
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      'portcullis: Unikraft Cloud refused the credential: unikraft_get_user answered HTTP 401 (change --token-env) [verify_failed]\n',
    );
    const [event] = await audit('--action', 'connection.create');
    expect(event).toMatchObject({
      decision: 'allowed',
      outcome: 'error',
      reason: 'verify_failed',
      subject: 'refused',
      actorName: 'cli',
    });
  });

  it('widens a grant with one command, and says a write that is off by default is off by default', async () => {
    await connected();
    const { key } = await json<{ key: string }>('agent', 'create', 'deploy-bot');
    expect((await portcullis('grant', 'deploy-bot', 'unikraft')).stdout).toBe(
      'granted deploy-bot reads (shared credential) on unikraft\n',
    );
    const client = await mcpClient(gateway.url, key);
    try {
      const write = () =>
        callTool(client, 'unikraft_create_volume', { body: { name: 'v', size_mb: 1 } });
      let refused = await write();
      expect(refused.structuredContent?.error).toMatchObject({
        code: 'not_granted',
        message: expect.stringContaining('portcullis grant deploy-bot unikraft --scope all'),
      });

      const widened = await portcullis('grant', 'deploy-bot', 'unikraft', '--scope', 'all');
      expect([widened.code, widened.stdout]).toEqual([
        0,
        "changed deploy-bot's grant on unikraft from reads (shared credential) to all (shared credential)\n",
      ]);
      refused = await write();
      expect(refused.structuredContent?.error).toMatchObject({
        code: 'action_disabled',
        message:
          'unikraft_create_volume: this is a write action, and write actions are off until an operator enables them: portcullis enable unikraft unikraft_create_volume',
      });
      expect((await portcullis('enable', 'unikraft', 'unikraft_create_volume')).code).toBe(0);
      expect((await write()).isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const [update] = await audit('--action', 'grant.update');
    expect(update).toMatchObject({ decision: 'allowed', actorName: 'cli' });
  });

  it('shows agents by name in the audit table, and the address an override called beside the host', async () => {
    await agentThatWrote('audit-bot');
    const [call] = await audit('--action', 'unikraft_create_volume', '--limit', '1');
    expect(call).toMatchObject({
      actorName: 'audit-bot',
      upstreamHost: 'api.fra.unikraft.cloud',
      upstreamAddress: origin,
    });
    const table = await portcullis('audit', '--agent', 'audit-bot', '--limit', '1');
    expect(table.stdout.split('\n')[1]).toMatch(/^\S+\s+audit-bot\s+unikraft_create_volume\s/);
  });

  it("marks a revoked agent's grants as such", async () => {
    await agentThatWrote('revoked-bot');
    expect((await portcullis('agent', 'revoke', 'revoked-bot')).code).toBe(0);
    const { stdout } = await portcullis('grants');
    expect(stdout.split('\n').find((line) => line.startsWith('revoked-bot'))).toMatch(
      /^revoked-bot \(revoked\)\s+unikraft\s+all\s+shared$/,
    );
    const grants = await json<Array<{ agent: string }>>('grants');
    expect(grants.filter((row) => row.agent === 'revoked-bot')).toEqual([
      expect.objectContaining({ agent: 'revoked-bot', agentStatus: 'revoked' }),
    ]);
  });
});
