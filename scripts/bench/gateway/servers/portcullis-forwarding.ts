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
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { upstreamArgument } from './announce.ts';
import { startBenchPortcullis } from './bench-portcullis.ts';
import { UPSTREAM_TOOL } from './mcp-upstream-tool.ts';

const CONNECTION = 'lean-upstream';
const upstream = upstreamArgument();
const { running, announce } = await startBenchPortcullis({
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
});
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

announce({
  url: `${running.url}/mcp/c/${CONNECTION}`,
  agentKey: key,
  toolName: UPSTREAM_TOOL.name,
});
