/**
 * Portcullis with all governance on, as a benchmark child: a fresh data folder
 * (SQLite), the catalogs from the checkout, Unikraft's calls sent to the bench
 * upstream through the development override, one connection (its credential
 * verified and sealed in the vault), one agent with a grant, audit on; and a
 * member who signs in through the consent page for a registered client, whose
 * consent's agent gets the same grant. It announces its MCP URL, the agent
 * key, that client's access token and the tool to call.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configFromEnvironment } from '../../../../runtime/core/config/config.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { connect } from '../../../../runtime/core/operator/connections.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { startServer } from '../../../../runtime/server.ts';
import { upstreamArgument } from './announce.ts';
import { signInAsMember } from './oauth-sign-in.ts';

const upstream = upstreamArgument();
// The bundle runs from .cache/bench-gateway/bin: the catalogs are named by the checkout's path.
const generated = pathToFileURL(
  join(process.env.PORTCULLIS_ROOT ?? process.cwd(), 'generated', '/'),
);
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-'));

const running = await startServer(
  configFromEnvironment({
    PORT: '0',
    PORTCULLIS_DATA_DIR: dataDir,
    PORTCULLIS_MASTER_KEY: randomBytes(32).toString('base64'),
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=${upstream.origin}`,
  }),
  generated,
);
const ctx = running.gateway.operator('bench');
await connect(ctx, { workspace: 'default', provider: 'unikraft', credential: 'bench-token' });
const { key } = await createAgent(ctx, { workspace: 'default', name: 'bench' });
await grant(ctx, { workspace: 'default', agent: 'bench', connection: 'unikraft', scope: 'reads' });

const accessToken = await signInAsMember(ctx, running.url);

process.stdout.write(
  `${JSON.stringify({ url: `${running.url}/mcp`, agentKey: key, accessToken, toolName: 'unikraft_get_user' })}\n`,
);
const stop = () => {
  running.close().finally(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
