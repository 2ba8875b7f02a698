/**
 * The MCP endpoint over the fixture host, served by Express on 127.0.0.1 at a
 * free port: what the endpoint tests and the conformance harness talk to.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  createMcpEndpoint,
  type McpEndpoint,
  type McpEndpointOptions,
} from '../../runtime/core/mcp/mcp-endpoint.ts';
import { mcpRouter } from '../../runtime/http/mcp-route.ts';
import { FixtureToolHost } from './fixture-host.ts';

export interface FixtureServer {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  host: FixtureToolHost;
  endpoint: McpEndpoint;
  close(): Promise<void>;
}

export async function startFixtureServer(
  options: Partial<Omit<McpEndpointOptions, 'host'>> = {},
): Promise<FixtureServer> {
  const host = new FixtureToolHost();
  const endpoint = createMcpEndpoint({
    serverInfo: { name: 'portcullis-fixture', version: '0.0.0' },
    ...options,
    host,
  });
  const app = express();
  app.disable('x-powered-by');
  app.use(mcpRouter(endpoint));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    host,
    endpoint,
    close: async () => {
      endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
