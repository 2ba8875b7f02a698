/**
 * The governed gateway end to end: the real HTTP server, the SDK's MCP client,
 * the admin API, and Prism serving the pinned Unikraft documents as the
 * provider. Nothing here is a fake of the thing under test.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
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

const CANARY = `ukc-canary-${randomBytes(12).toString('hex')}`;
const PERSONAL = `ukc-personal-${randomBytes(12).toString('hex')}`;

let platform: PrismServer;
let sandbox: PrismServer;
let gateway: TestGateway;
let admin: ReturnType<typeof adminClient>;
let reader: Client;
let readerKey: string;
const printed: string[] = [];
const restore: Array<() => void> = [];

function capture(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    printed.push(String(chunk));
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof stream.write;
  restore.push(() => {
    stream.write = write;
  });
}

const call = callTool;

const codeOf = toolReasonOf;

/**
 * Runs `body` with actions enabled on the unikraft connection, and disables
 * them again after, so no test depends on another having run before it.
 */
async function whileEnabled<T>(
  which: { actions: string[] } | { classification: string },
  body: () => Promise<T>,
): Promise<T> {
  const path = '/workspaces/default/connections/unikraft/actions';
  expect((await admin('POST', `${path}/enable`, which)).status).toBe(200);
  try {
    return await body();
  } finally {
    expect((await admin('POST', `${path}/disable`, which)).status).toBe(200);
  }
}

async function newAgent(name: string, workspace = 'default'): Promise<string> {
  const created = await admin('POST', `/workspaces/${workspace}/agents`, { name });
  expect(created.status).toBe(201);
  return created.body.key as string;
}

beforeAll(async () => {
  capture(process.stdout);
  capture(process.stderr);
  [platform, sandbox] = await Promise.all([
    startPrism('unikraft', 'platform'),
    startPrism('unikraft', 'sandbox'),
  ]);
  gateway = await startTestGateway({
    upstreams: { unikraft: platform.url, 'unikraft/sandbox': sandbox.url },
  });
  admin = adminClient(gateway.url, gateway.adminToken!);
  const connected = await admin('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: CANARY,
    settings: { metro: 'fra' },
  });
  expect(connected.status).toBe(201);
  readerKey = await newAgent('reader');
  expect(
    (
      await admin('POST', '/workspaces/default/grants', {
        agent: 'reader',
        connection: 'unikraft',
        scope: 'all',
      })
    ).status,
  ).toBe(201);
  reader = await mcpClient(gateway.url, readerKey);
});

afterAll(async () => {
  await reader?.close();
  await gateway?.close();
  await Promise.all([platform?.stop(), sandbox?.stop()]);
  for (const undo of restore) undo();
});

describe('tools/list', () => {
  it('shows the granted, enabled actions (reads by default) with every annotation stated', async () => {
    const { tools } = await reader.listTools();
    expect(tools.length).toBe(34);
    for (const tool of tools) {
      expect(tool.annotations).toEqual({
        title: expect.any(String),
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: expect.any(Boolean),
        openWorldHint: true,
      });
    }
    expect(tools.map((t) => t.name)).toContain('unikraft_get_user');
    expect(tools.map((t) => t.name)).not.toContain('unikraft_create_volume');
  });
});

describe('tools/call', () => {
  it('calls a read and answers JSON as structuredContent, with an audit event', async () => {
    const result = await call(reader, 'unikraft_get_user');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.status).toBe('success');
    const [event] = (await admin('GET', '/audit?action=unikraft_get_user&limit=1')).body;
    expect(event).toMatchObject({
      decision: 'allowed',
      outcome: 'ok',
      upstreamStatus: 200,
      actorKind: 'agent',
    });
    expect(event.argumentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sends a JSON body on GET where the spec has one', async () => {
    const result = await call(reader, 'unikraft_get_volumes', { body: [{ name: 'vol-1' }] });
    expect(result.isError).toBeFalsy();
  });

  it('refuses a write until an operator enables it, then runs it', async () => {
    const args = { body: { name: 'vol-a', size_mb: 16 } };
    expect(codeOf(await call(reader, 'unikraft_create_volume', args))).toBe('action_disabled');
    const enabled = await admin('POST', '/workspaces/default/connections/unikraft/actions/enable', {
      actions: ['unikraft_create_volume'],
    });
    try {
      expect(enabled.body).toEqual([
        expect.objectContaining({ action: 'unikraft_create_volume', state: 'enabled' }),
      ]);
      const result = await call(reader, 'unikraft_create_volume', args);
      expect(result.isError).toBeFalsy();
      const [event] = (await admin('GET', '/audit?action=unikraft_create_volume&limit=2')).body;
      expect(event).toMatchObject({ decision: 'allowed', outcome: 'ok' });
    } finally {
      await admin('POST', '/workspaces/default/connections/unikraft/actions/disable', {
        actions: ['unikraft_create_volume'],
      });
    }
  });

  it('runs a destructive DELETE with its JSON body once enabled', async () => {
    const args = { body: [{ name: 'vol-a' }] };
    expect(codeOf(await call(reader, 'unikraft_delete_volumes', args))).toBe('action_disabled');
    const result = await whileEnabled({ classification: 'destructive' }, () =>
      call(reader, 'unikraft_delete_volumes', args),
    );
    expect(result.isError).toBeFalsy();
  });

  // The instance lands in the server URL's path, which the development override
  // replaces; server-url.test.ts checks where it lands.
  it('runs a sandbox command through its own server template', async () => {
    const result = await whileEnabled({ actions: ['unikraft_sandbox_run_command'] }, () =>
      call(reader, 'unikraft_sandbox_run_command', {
        server: { instance: 'my-sandbox' },
        body: { cmd: 'echo hello' },
      }),
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeDefined();
  });

  it("goes to the connection's default metro, or the one the call names; refuses an unpublished one", async () => {
    const hostOfLastCall = async () =>
      (await admin('GET', '/audit?action=unikraft_get_user&limit=1')).body[0].upstreamHost;
    expect((await call(reader, 'unikraft_get_user')).isError).toBeFalsy();
    expect(await hostOfLastCall()).toBe('api.fra.unikraft.cloud');
    expect(
      (await call(reader, 'unikraft_get_user', { server: { metro: 'sin' } })).isError,
    ).toBeFalsy();
    expect(await hostOfLastCall()).toBe('api.sin.unikraft.cloud');
    const refused = await call(reader, 'unikraft_get_user', { server: { metro: 'evil' } });
    expect(codeOf(refused)).toBe('arguments_invalid');
    expect(refused.structuredContent?.error?.field).toBe('/server/metro');
  });

  it.each(['..', '.', '../users', 'a/../b', '%2e%2e', '..%2F', 'x%252f..'])(
    'refuses the path parameter %j',
    async (name) => {
      const result = await call(reader, 'unikraft_get_autoscale_configuration_policy_by_name', {
        path: { uuid: '123e4567-e89b-12d3-a456-426614174000', name },
      });
      expect(codeOf(result)).toBe('path_parameter_refused');
      expect(result.structuredContent?.error?.field).toBe('/path/name');
      const [event] = (
        await admin(
          'GET',
          '/audit?action=unikraft_get_autoscale_configuration_policy_by_name&limit=1',
        )
      ).body;
      expect(event).toMatchObject({
        decision: 'denied',
        reason: 'path_parameter_refused',
        upstreamStatus: null,
      });
    },
  );

  it('names the missing field when the arguments do not match the schema', async () => {
    const result = await whileEnabled({ actions: ['unikraft_create_volume'] }, () =>
      call(reader, 'unikraft_create_volume', {}),
    );
    expect(codeOf(result)).toBe('arguments_invalid');
    expect(result.structuredContent?.error?.field).toBe('/body');
  });

  it('answers an unknown tool with tool_unknown', async () => {
    expect(codeOf(await call(reader, 'unikraft_no_such_thing'))).toBe('tool_unknown');
  });
});

describe('grants and credentials', () => {
  it('limits a reads-only grant to reads even when writes are enabled', async () => {
    const key = await newAgent('looker');
    await admin('POST', '/workspaces/default/grants', {
      agent: 'looker',
      connection: 'unikraft',
      scope: 'reads',
    });
    const client = await mcpClient(gateway.url, key);
    try {
      const write = await whileEnabled({ actions: ['unikraft_create_volume'] }, () =>
        call(client, 'unikraft_create_volume', { body: { name: 'v', size_mb: 1 } }),
      );
      expect(codeOf(write)).toBe('not_granted');
      expect((await call(client, 'unikraft_get_user')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("uses the agent's personal credential: refused until it has one, then verified and used", async () => {
    const key = await newAgent('personal');
    await admin('POST', '/workspaces/default/grants', {
      agent: 'personal',
      connection: 'unikraft',
      scope: 'reads',
      credential: 'personal',
    });
    const client = await mcpClient(gateway.url, key);
    try {
      expect(codeOf(await call(client, 'unikraft_get_user'))).toBe('credential_missing');
      const set = await admin('PUT', '/workspaces/default/connections/unikraft/credential', {
        agent: 'personal',
        credential: PERSONAL,
      });
      expect(set.status).toBe(200);
      expect((await call(client, 'unikraft_get_user')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('refuses an agent revoked mid-session on its next call', async () => {
    const key = await newAgent('short-lived');
    await admin('POST', '/workspaces/default/grants', {
      agent: 'short-lived',
      connection: 'unikraft',
    });
    const client = await mcpClient(gateway.url, key);
    try {
      expect((await call(client, 'unikraft_get_user')).isError).toBeFalsy();
      expect((await admin('POST', '/workspaces/default/agents/short-lived/revoke')).status).toBe(
        200,
      );
      await expect(call(client, 'unikraft_get_user')).rejects.toThrow(/Unauthorized/);
      const raw = await fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(raw.status).toBe(401);
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe('connections', () => {
  it('refuses every call on a disabled connection and hides its tools, until it is enabled again', async () => {
    expect((await admin('POST', '/workspaces/default/connections/unikraft/disable')).status).toBe(
      200,
    );
    expect(codeOf(await call(reader, 'unikraft_get_user'))).toBe('connection_inactive');
    expect((await reader.listTools()).tools).toEqual([]);
    expect((await admin('POST', '/workspaces/default/connections/unikraft/enable')).status).toBe(
      200,
    );
    expect((await call(reader, 'unikraft_get_user')).isError).toBeFalsy();
  });
});

describe('workspace isolation', () => {
  it("never shows or calls another workspace's connection", async () => {
    expect((await admin('POST', '/workspaces', { name: 'other' })).status).toBe(201);
    const key = await newAgent('outsider', 'other');
    const client = await mcpClient(gateway.url, key);
    try {
      expect((await client.listTools()).tools).toEqual([]);
      expect(codeOf(await call(client, 'unikraft_get_user'))).toBe('tool_unknown');
      // A grant in its own workspace cannot name the default workspace's connection.
      const grant = await admin('POST', '/workspaces/other/grants', {
        agent: 'outsider',
        connection: 'unikraft',
      });
      expect([grant.status, grant.body.error.code, grant.body.error.field]).toEqual([
        404,
        'not_found',
        'connection',
      ]);
      const denied = (await admin('GET', '/audit?workspace=other&limit=5')).body;
      // The refused grant is the operator's record too.
      expect(denied[0]).toMatchObject({
        action: 'grant.create',
        decision: 'denied',
        reason: 'not_found',
      });
      expect(denied[1]).toMatchObject({
        action: 'unikraft_get_user',
        decision: 'denied',
        reason: 'tool_unknown',
        connectionId: null,
      });
    } finally {
      await client.close();
    }
  });
});

describe('the admin API', () => {
  it('refuses a request without the admin token with 401 and a challenge', async () => {
    const response = await fetch(`${gateway.url}/admin/v1/workspaces`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('refuses an agent key as an admin token', async () => {
    const response = await fetch(`${gateway.url}/admin/v1/workspaces`, {
      headers: { authorization: `Bearer ${readerKey}` },
    });
    expect(response.status).toBe(401);
  });

  it('answers bad input with a code and the field to change, writing nothing', async () => {
    const bad = await admin('POST', '/workspaces/default/connections', {
      provider: 'unikraft',
      credential: 'x',
      settings: { metro: 'mars' },
    });
    expect([bad.status, bad.body.error.code, bad.body.error.field]).toEqual([
      400,
      'invalid_input',
      'settings.metro',
    ]);
    const unknown = await admin('POST', '/workspaces/default/connections', {
      provider: 'nope',
      credential: 'x',
    });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.field]).toEqual([
      404,
      'not_found',
      'provider',
    ]);
    const taken = await admin('POST', '/workspaces/default/agents', { name: 'reader' });
    expect([taken.status, taken.body.error.code, taken.body.error.field]).toEqual([
      409,
      'conflict',
      'name',
    ]);
    const connections = (await admin('GET', '/workspaces/default/connections')).body;
    expect(connections.map((c: { name: string }) => c.name)).toEqual(['unikraft']);
  });

  it('refuses to connect when the credential cannot be verified (the provider is unreachable), writing nothing', async () => {
    const down = await startTestGateway({ upstreams: { unikraft: 'http://127.0.0.1:9' } });
    try {
      const downAdmin = adminClient(down.url, down.adminToken!);
      const refused = await downAdmin('POST', '/workspaces/default/connections', {
        provider: 'unikraft',
        credential: CANARY,
      });
      expect([refused.status, refused.body.error.code]).toEqual([422, 'verify_failed']);
      expect(refused.text).not.toContain(CANARY);
      expect((await downAdmin('GET', '/workspaces/default/connections')).body).toEqual([]);
    } finally {
      await down.close();
    }
  });
});

describe('secrets', () => {
  it('never shows the credential in audit, API replies, tool results, errors or logs', async () => {
    const everything = [
      (await admin('GET', '/audit?limit=10000')).text,
      (await admin('GET', '/audit?workspace=other&limit=10000')).text,
      (await admin('GET', '/workspaces/default/connections')).text,
      (await admin('GET', '/workspaces/default/grants')).text,
      (await admin('GET', '/workspaces/default/agents')).text,
      (await admin('GET', '/workspaces/default/connections/unikraft/actions')).text,
      JSON.stringify(await call(reader, 'unikraft_get_user')),
      JSON.stringify(await call(reader, 'unikraft_get_user', { server: { metro: 'nope' } })),
      JSON.stringify(await reader.listTools()),
      printed.join(''),
    ].join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    expect(everything).not.toContain(CANARY);
    expect(everything).not.toContain(PERSONAL);
  });
});
