/**
 * @ivotoby/openapi-mcp-server, installed into .cache/bench at run time, run
 * from its CLI over its own Streamable HTTP transport, with the quotas spec.
 *
 * 1.16.1 declares no engines; its dependencies ask for Node ≥ 18 and it runs on
 * Node 20. It answers `tools/call` with 202 and sends the result on the
 * session's GET stream (the load generator waits for it there), and names the
 * tool itself (read from tools/list).
 */
import { join } from 'node:path';
import { ensureScratchPackage, type ScratchPackage } from '../../scratch-packages.ts';
import { listToolNames } from '../load/mcp-caller.ts';
import { SCRATCH } from '../paths.ts';
import { freePort, startServerChild } from '../server-child.ts';
import { writeQuotasSpec } from './quotas-spec.ts';
import type { GatewayTarget } from './target.ts';

export const IVOTOBY_OPENAPI_MCP_SERVER: ScratchPackage = {
  name: '@ivotoby/openapi-mcp-server',
  version: '1.16.1',
};

export const ivotobyOpenapiMcpServer: GatewayTarget = {
  name: 'ivotoby-openapi-mcp-server',
  async start(upstreamUrl) {
    const folder = await ensureScratchPackage(SCRATCH, IVOTOBY_OPENAPI_MCP_SERVER);
    const spec = await writeQuotasSpec();
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const child = await startServerChild({
      name: this.name,
      command: process.execPath,
      // Options as its README gives them; --verbose false, or it logs every message.
      args: [
        join(folder, 'bin', 'mcp-server.js'),
        '--api-base-url',
        upstreamUrl,
        '--openapi-spec',
        spec.path,
        '--transport',
        'http',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--path',
        '/mcp',
        '--verbose',
        'false',
      ],
      ready: { kind: 'poll', url: `${origin}/health` },
    });
    try {
      const url = `${origin}/mcp`;
      const [toolName, ...others] = await listToolNames({ url, headers: {} });
      if (!toolName || others.length > 0)
        throw new Error(`expected one tool, listed ${[toolName, ...others].join(', ')}`);
      return {
        url,
        headers: {},
        toolName,
        arguments: {},
        mode: 'mcp',
        pid: child.pid,
        notes: [
          `${IVOTOBY_OPENAPI_MCP_SERVER.name}@${IVOTOBY_OPENAPI_MCP_SERVER.version}: tool "${toolName}"; replies to tools/call arrive on the session's GET stream after a 202`,
        ],
        close: child.close,
      };
    } catch (error) {
      await child.close();
      throw error;
    }
  },
};
