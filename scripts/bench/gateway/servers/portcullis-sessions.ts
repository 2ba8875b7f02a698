/**
 * Portcullis holding many upstream sessions, as a benchmark child: the lean
 * upstream MCP server (2025 only, so each credential gets a session of its
 * own) connected with a key, and `count` agents, each granted the connection
 * with a personal credential (its own key), so each agent's calls go through
 * an upstream session of its own. What an operator does by hand:
 *
 *   portcullis connect-url <upstream>/mcp --name lean-upstream --token-env KEY
 *   portcullis review lean-upstream --all
 *   portcullis agent create agent-<i>
 *   portcullis grant agent-<i> lean-upstream --scope reads --personal
 *   portcullis credential set lean-upstream --agent agent-<i> --token-env KEY_<i>
 *
 * It announces /mcp/c/lean-upstream, the agents' keys and the tool.
 */
import { changeActions } from '../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { setCredential } from '../../../../runtime/core/operator/connections.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../runtime/core/operator/remote-connections.ts';
import { upstreamArgument } from './announce.ts';
import { startBenchPortcullis } from './bench-portcullis.ts';
import { UPSTREAM_TOOL } from './mcp-upstream-tool.ts';

const CONNECTION = 'lean-upstream';
const upstream = upstreamArgument();
const count = Number(process.argv[3] ?? 1000);
const { running, announce } = await startBenchPortcullis({
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
});
const ctx = running.gateway.operator('bench');
const workspace = 'default';
const connected = await connectUrl(ctx, {
  workspace,
  url: upstream.href,
  name: CONNECTION,
  token: 'shared-bench-key',
});
if (connected.next !== 'review' || connected.endpoint.revision === '2026-07-28') {
  console.error(
    `connect-url ${upstream.href}: expected a 2025 server's tools to review, got ${connected.next} (${connected.endpoint.revision})`,
  );
  process.exit(1);
}
await changeActions(ctx, 'review', { workspace, connection: CONNECTION, all: true });
const keys: string[] = [];
for (let i = 0; i < count; i++) {
  const agent = `agent-${i}`;
  const { key } = await createAgent(ctx, { workspace, name: agent });
  await grant(ctx, {
    workspace,
    agent,
    connection: CONNECTION,
    scope: 'reads',
    credential: 'personal',
  });
  await setCredential(ctx, { workspace, connection: CONNECTION, agent, credential: `key-${i}` });
  keys.push(key);
}

announce({
  url: `${running.url}/mcp/c/${CONNECTION}`,
  agentKeys: keys,
  toolName: UPSTREAM_TOOL.name,
});
