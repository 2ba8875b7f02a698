/**
 * The MCP endpoint over the fixture backend on 127.0.0.1 at a free port: what the
 * endpoint tests and the conformance harness talk to. Mounted either straight
 * on `node:http` (`withMcpEndpoint`, the default) or as an Express router.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { type McpRouteOptions, withMcpEndpoint } from '../../../runtime/adapters/http/mcp-route.ts';
import { mcpRouter } from '../../../runtime/adapters/http/mcp-router.ts';
import {
  createMcpEndpoint,
  type McpEndpoint,
  type McpEndpointOptions,
} from '../../../runtime/core/mcp/server/mcp-endpoint.ts';
import { RequestStateSealer } from '../../../runtime/core/mcp/server/request-state.ts';
import type { ToolBackend } from '../../../runtime/core/mcp/server/tool-backend.ts';
import { FixtureBackend } from './fixture-backend.ts';

/** The fixture's request-state key: fixed, so a test can seal a state of its own. */
export const FIXTURE_STATE_KEY = new Uint8Array(32).fill(7);

export type FixtureMount = 'node' | 'express';

export interface FixtureServerOptions extends Partial<Omit<McpEndpointOptions, 'backend'>> {
  mount?: FixtureMount;
  route?: McpRouteOptions;
}

export interface McpTestServer<B extends ToolBackend> {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  backend: B;
  endpoint: McpEndpoint;
  close(): Promise<void>;
}

export type FixtureServer = McpTestServer<FixtureBackend>;

export function startFixtureServer(options: FixtureServerOptions = {}): Promise<FixtureServer> {
  return startMcpServer(new FixtureBackend(), options);
}

/** The endpoint over any backend, on loopback. */
export async function startMcpServer<B extends ToolBackend>(
  backend: B,
  options: FixtureServerOptions = {},
): Promise<McpTestServer<B>> {
  const { mount = 'node', route, ...endpointOptions } = options;
  const endpoint = createMcpEndpoint({
    serverInfo: { name: 'portcullis-fixture', version: '0.0.0' },
    requestState: new RequestStateSealer({ keys: [FIXTURE_STATE_KEY] }),
    ...endpointOptions,
    backend,
  });
  const app = express();
  app.disable('x-powered-by');
  if (mount === 'express') app.use(mcpRouter(endpoint, route));
  const server = createServer(mount === 'express' ? app : withMcpEndpoint(endpoint, app, route));
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    backend,
    endpoint,
    close: async () => {
      endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
