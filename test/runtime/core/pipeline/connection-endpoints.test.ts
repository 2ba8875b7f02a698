/** The endpoints of /mcp/c/<name>: one per name, a real name's kept, the others' bounded. */
import { describe, expect, it } from 'vitest';
import type { McpEndpoint } from '../../../../runtime/core/mcp/server/mcp-endpoint.ts';
import { ConnectionEndpoints } from '../../../../runtime/core/pipeline/connection-endpoints.ts';

/** Endpoints that say which name they were made for, and whether they were closed. */
function harness(connections: Set<string>, maxOthers = 2) {
  const made: Array<{ name: string; closed: boolean }> = [];
  const endpoints = new ConnectionEndpoints({
    make: (name) => {
      const record = { name, closed: false };
      made.push(record);
      return {
        handle: () => Promise.reject(new Error('not for this test')),
        close: () => {
          record.closed = true;
        },
        sessionCount: 0,
        record,
      } as unknown as McpEndpoint;
    },
    isConnection: async (name) => connections.has(name),
    maxOthers,
  });
  return { endpoints, made };
}

describe('connection endpoints', () => {
  it('serve every name, each by one endpoint of its own', async () => {
    const { endpoints, made } = harness(new Set(['real']));
    const real = await endpoints.of('real');
    const madeUp = await endpoints.of('made-up');
    expect(await endpoints.of('real')).toBe(real);
    expect(await endpoints.of('made-up')).toBe(madeUp);
    expect(made.map((m) => m.name)).toEqual(['real', 'made-up']);
  });

  it('end the oldest made-up name’s endpoint past the bound, never a real one’s', async () => {
    const { endpoints, made } = harness(new Set(['real']), 2);
    await endpoints.of('real');
    for (const name of ['a', 'b', 'c', 'd']) await endpoints.of(name);
    expect(made.filter((m) => m.closed).map((m) => m.name)).toEqual(['a', 'b']);
    expect(made.find((m) => m.name === 'real')?.closed).toBe(false);
  });

  it('keep the endpoint a name had once it becomes a connection', async () => {
    const connections = new Set<string>();
    const { endpoints, made } = harness(connections, 1);
    const before = await endpoints.of('soon');
    connections.add('soon');
    expect(await endpoints.of('soon')).toBe(before);
    await endpoints.of('other');
    expect(made.find((m) => m.name === 'soon')?.closed).toBe(false);
  });

  it('close every endpoint', async () => {
    const { endpoints, made } = harness(new Set(['real']));
    await endpoints.of('real');
    await endpoints.of('made-up');
    endpoints.close();
    expect(made.every((m) => m.closed)).toBe(true);
  });
});
