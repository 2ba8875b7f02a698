/**
 * Portcullis with all governance on, forwarding to the lean upstream MCP
 * server as a remote MCP connection, as a benchmark child. What an operator
 * does by hand, through the same operator calls the CLI makes:
 *
 *   PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS=1   (the upstream is on loopback, plain http)
 *   portcullis connect-url <upstream>/mcp --name lean-upstream
 *   portcullis review lean-upstream --all     (every discovered tool starts quarantined)
 *   portcullis enable lean-upstream --all     (when review leaves any not enabled)
 *   portcullis agent create bench
 *   portcullis grant bench lean-upstream --scope reads
 *
 * and the agent calls `get_user_quotas` at /mcp/c/lean-upstream (the
 * connection's tools under their upstream names). It announces that URL,
 * the agent key and the tool.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configFromEnvironment } from '../../../../runtime/core/config/config.ts';
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { startServer } from '../../../../runtime/server.ts';
import { upstreamArgument } from './announce.ts';
import { UPSTREAM_TOOL } from './mcp-upstream-tool.ts';

const CONNECTION = 'lean-upstream';
const upstream = upstreamArgument();
const generated = pathToFileURL(
  join(process.env.PORTCULLIS_ROOT ?? process.cwd(), 'generated', '/'),
);
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-forwarding-'));

const running = await startServer(
  configFromEnvironment({
    PORT: '0',
    PORTCULLIS_DATA_DIR: dataDir,
    PORTCULLIS_MASTER_KEY: randomBytes(32).toString('base64'),
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
  }),
  generated,
);
const ctx = running.gateway.operator('bench');
const workspace = 'default';
const connected = await connectUrl(ctx, { workspace, url: upstream.href, name: CONNECTION });
if (connected.next !== 'review') {
  console.error(`connect-url ${upstream.href}: expected tools to review, got ${connected.next}`);
  process.exit(1);
}
const reviewed = await changeActions(ctx, 'review', {
  workspace,
  connection: CONNECTION,
  all: true,
});
if (reviewed.some((action) => action.state !== 'enabled'))
  await changeActions(ctx, 'enable', { workspace, connection: CONNECTION, all: true });
const { key } = await createAgent(ctx, { workspace, name: 'bench' });
await grant(ctx, { workspace, agent: 'bench', connection: CONNECTION, scope: 'reads' });

process.stdout.write(
  `${JSON.stringify({
    url: `${running.url}/mcp/c/${CONNECTION}`,
    agentKey: key,
    toolName: UPSTREAM_TOOL.name,
  })}\n`,
);
const stop = () => {
  running.close().finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
