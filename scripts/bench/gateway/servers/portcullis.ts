/**
 * Portcullis with all governance on, as a benchmark child: a fresh data folder
 * (SQLite), the catalogs from the checkout, Unikraft's calls sent to the bench
 * upstream through the development override, one connection (its credential
 * verified and sealed in the vault), one agent with a grant, audit on; and a
 * member who signs in through the consent page for a registered client, whose
 * consent's agent gets the same grant. It announces its MCP URL, the agent
 * key, that client's access token and the tool to call.
 */
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { connect } from '../../../../runtime/core/operator/connections.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { upstreamArgument } from './announce.ts';
import { startBenchPortcullis } from './bench-portcullis.ts';
import { signInAsMember } from './oauth-sign-in.ts';

const upstream = upstreamArgument();
const { running, announce } = await startBenchPortcullis({
  PORTCULLIS_DEV_UPSTREAMS: `unikraft=${upstream.origin}`,
});
const ctx = running.gateway.operator('bench');
await connect(ctx, { workspace: 'default', provider: 'unikraft', credential: 'bench-token' });
const { key } = await createAgent(ctx, { workspace: 'default', name: 'bench' });
await grant(ctx, { workspace: 'default', agent: 'bench', connection: 'unikraft', scope: 'reads' });

const accessToken = await signInAsMember(ctx, running.url);

announce({ url: `${running.url}/mcp`, agentKey: key, accessToken, toolName: 'unikraft_get_user' });
