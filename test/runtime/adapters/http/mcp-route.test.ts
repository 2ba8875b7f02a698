/**
 * The node:http mount of the MCP endpoint when the endpoint itself fails: the
 * client gets a JSON-RPC internal error (not an empty 500), and the failure
 * reaches the operator's log. The endpoint is a stand-in that throws: this
 * tests the adapter alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withMcpEndpoint } from '../../../../runtime/adapters/http/mcp-route.ts';
import type { McpEndpoint } from '../../../../runtime/core/mcp/server/mcp-endpoint.ts';

const reported: unknown[] = [];
const failing: McpEndpoint = {
  handle: () => Promise.reject(new RangeError('Maximum call stack size exceeded')),
  close: () => {},
  sessionCount: 0,
};
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(
    withMcpEndpoint(failing, (_req, res) => res.writeHead(404).end(), {
      onInternalError: (error) => reported.push(error),
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('withMcpEndpoint, when the endpoint fails', () => {
  it('answers a JSON-RPC internal error and reports the failure', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: -32603 } });
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(RangeError);
  });
});
