/**
 * The graceful stop of `npm start`'s process, run as an orchestrator runs it:
 * a child process serving a real remote MCP server (the SDK's, on loopback),
 * then SIGTERM.
 *
 * - Calls under way (held upstream until the test opens the gate) answer
 *   after the signal, each with its audit event in the store, while the
 *   process listens no more; it ends the upstream session and exits 0.
 * - At the deadline, a call still under way is cut off, its upstream
 *   request failed; it is audited all the same, and the process exits 0.
 * - A second signal exits at once (143), the call under way unanswered.
 * - Under load, every result an agent received has its audit event: calls
 *   from many workers, SIGTERM midway, each received result's argument hash
 *   found in the audit log once the process has exited.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../runtime/adapters/sql/open-store.ts';
import { SQLITE_FILE } from '../../runtime/compose/open-stores.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { argumentHash } from '../../runtime/core/pipeline/arguments.ts';
import { callTool, mcpClient, startTestGateway } from '../support/gateway.ts';
import { connectReviewed } from '../support/remote/reviewed-connection.ts';
import { startUpstream, type Upstream } from '../support/remote/upstream-servers.ts';
import { runServer, type ServerProcess } from '../support/run-server.ts';

/** Starts take seconds, tens of them on a busy machine. */
const TIMEOUT = 300_000;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A data folder whose agent `caller` may read the remote connection `slow` (`upstream`). */
async function preparedDataDir(upstream: Upstream): Promise<{ dataDir: string; key: string }> {
  const gateway = await startTestGateway({
    environment: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' },
  });
  try {
    const ctx = gateway.running.gateway.operator('test');
    const { key } = await createAgent(ctx, { workspace: 'default', name: 'caller' });
    await connectReviewed(ctx, { url: upstream.url, name: 'slow' }, 'caller');
    return { dataDir: gateway.dataDir, key };
  } finally {
    await gateway.close();
  }
}

async function startServing(
  upstream: Upstream,
  deadlineMs = TIMEOUT,
): Promise<{
  server: ServerProcess;
  client: Client;
  dataDir: string;
}> {
  const { dataDir, key } = await preparedDataDir(upstream);
  const server = await runServer(
    {
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      // Longer than any test waits: what is under way answers before it.
      PORTCULLIS_SHUTDOWN_DEADLINE_MS: String(deadlineMs),
    },
    // The banner's last line: printed as the signal handlers are set.
    { started: (stdout) => stdout.includes('DEVELOPMENT: outbound calls may reach loopback') },
  );
  cleanups.push(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
  });
  const client = await mcpClient(server.url, key);
  cleanups.push(() => client.close());
  return { server, client, dataDir };
}

/** A new connection's `/healthz`: `serving` (200), the one error shape's code, or `refused`. */
function probe(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      res.on('end', () =>
        resolve(
          res.statusCode === 200
            ? 'serving'
            : ((JSON.parse(body) as { error: { code: string } }).error.code ?? body),
        ),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'refused' : String(error.code)),
    );
    req.end();
  });
}

async function auditedCalls(dataDir: string, action: string) {
  const store = await openStore({ sqliteFile: join(dataDir, SQLITE_FILE) });
  try {
    return await store.audit.query({ action, limit: 100_000 });
  } finally {
    await store.close();
  }
}

describe('SIGTERM', () => {
  it(
    'lets the calls under way answer and be audited, listens no more, ends the upstream session and exits 0',
    async () => {
      const upstream = await startUpstream('stateful', { gateTool: true });
      cleanups.push(() => upstream.close());
      const { server, client, dataDir } = await startServing(upstream);

      const calls = [1, 2, 3].map(() => callTool(client, 'slow__gate'));
      await expect
        .poll(() => upstream.calls.filter((c) => c.tool === 'gate').length, { timeout: TIMEOUT })
        .toBe(3);

      server.child.kill('SIGTERM');
      // A new connection is refused (the listener is closed), while the calls still wait.
      await expect.poll(() => probe(server.url), { timeout: TIMEOUT }).toBe('refused');

      upstream.open();
      for (const reply of await Promise.all(calls)) {
        expect(reply.isError).toBeFalsy();
        expect(reply.content).toEqual([{ type: 'text', text: 'through the gate' }]);
      }
      expect(await server.exited).toBe(0);
      expect(server.output().stderr).toBe('');

      const events = await auditedCalls(dataDir, 'slow__gate');
      expect(events.map((e) => [e.decision, e.outcome, e.reason])).toEqual([
        ['allowed', 'ok', null],
        ['allowed', 'ok', null],
        ['allowed', 'ok', null],
      ]);
      // The session the calls ran in was ended upstream (DELETE) as the process stopped.
      const session = upstream.calls.find((c) => c.tool === 'gate')?.sessionId;
      expect(session).toBeDefined();
      expect(upstream.ended).toContain(session);
    },
    TIMEOUT,
  );

  it(
    'at the deadline cuts off what is still under way, its upstream request failed and audited, and exits 0',
    async () => {
      const upstream = await startUpstream('stateful', { gateTool: true });
      cleanups.push(() => upstream.close());
      const { server, client, dataDir } = await startServing(upstream, 0);

      const call = callTool(client, 'slow__gate').then(
        () => 'answered',
        () => 'cut off',
      );
      await expect
        .poll(() => upstream.calls.some((c) => c.tool === 'gate'), { timeout: TIMEOUT })
        .toBe(true);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(await call).toBe('cut off');
      const events = await auditedCalls(dataDir, 'slow__gate');
      expect(events.map((e) => [e.decision, e.outcome])).toEqual([['allowed', 'error']]);
    },
    TIMEOUT,
  );

  it(
    'then a second signal exits at once, the call under way unanswered',
    async () => {
      const upstream = await startUpstream('stateful', { gateTool: true });
      cleanups.push(() => upstream.close());
      const { server, client } = await startServing(upstream);

      const call = callTool(client, 'slow__gate').then(
        () => 'answered',
        () => 'cut off',
      );
      await expect
        .poll(() => upstream.calls.some((c) => c.tool === 'gate'), { timeout: TIMEOUT })
        .toBe(true);
      server.child.kill('SIGTERM');
      await expect.poll(() => probe(server.url), { timeout: TIMEOUT }).toBe('refused');

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(143);
      expect(await call).toBe('cut off');
    },
    TIMEOUT,
  );

  it(
    'under load loses no audited call: every result an agent received has its audit event',
    async () => {
      const upstream = await startUpstream('stateful');
      cleanups.push(() => upstream.close());
      const { server, client, dataDir } = await startServing(upstream);

      const received: string[] = [];
      let next = 0;
      let signalled = false;
      const worker = async () => {
        for (;;) {
          const city = `city-${next++}`;
          try {
            const reply = await callTool(client, 'slow__get_weather', { city });
            if (reply.isError) return;
            received.push(city);
          } catch {
            return;
          }
          if (received.length >= 40 && !signalled) {
            signalled = true;
            server.child.kill('SIGTERM');
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      expect(signalled).toBe(true);
      expect(await server.exited).toBe(0);

      const audited = new Set(
        (await auditedCalls(dataDir, 'slow__get_weather'))
          .filter((e) => e.outcome === 'ok')
          .map((e) => e.argumentHash),
      );
      const missing = received.filter((city) => !audited.has(argumentHash({ city })));
      expect(missing).toEqual([]);
      expect(received.length).toBeGreaterThanOrEqual(40);
    },
    TIMEOUT,
  );
});
