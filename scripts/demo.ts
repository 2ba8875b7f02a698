/**
 * `npm run demo`: a newcomer's first minute. Starts Prism on the pinned Unikraft
 * platform document as a stand-in for Unikraft Cloud, starts the gateway
 * pointed at it (an explicit development override), connects Unikraft, creates
 * an agent with a grant, and then, as that agent over MCP: lists its tools,
 * calls a read, and is refused a write until an operator enables it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { configFromEnvironment } from '../runtime/config/config.ts';
import { startServer } from '../runtime/server.ts';
import { startPrism } from '../test/support/prism.ts';

const bold = (text: string) => (process.stdout.isTTY ? `\u001b[1m${text}\u001b[22m` : text);
const say = (text: string) => process.stdout.write(`${text}\n`);
const step = (text: string) => say(`\n${bold(`▸ ${text}`)}`);

step('Starting Prism, a mock of Unikraft Cloud built from the pinned OpenAPI document');
const prism = await startPrism('unikraft', 'platform');
say(`  Prism answers on ${prism.url} with the document's examples.`);

step('Starting Portcullis (embedded SQLite in a temporary folder)');
const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-demo-'));
const running = await startServer(
  configFromEnvironment({
    PORT: '0',
    PORTCULLIS_DATA_DIR: dataDir,
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=${prism.url}`,
  }),
  new URL('../generated/', import.meta.url),
);
say(`  Listening on ${running.url}; agents connect to ${running.url}/mcp.`);
say(`  Development override: Unikraft calls go to Prism instead of api.<metro>.unikraft.cloud.`);
const adminToken = running.gateway.startup.adminToken!;

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${running.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
}

interface ToolReply {
  structuredContent?: { error?: { code: string; message: string } } & Record<string, unknown>;
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolReply> {
  return (await client.callTool({ name, arguments: args })) as ToolReply;
}

try {
  step(
    'The operator connects Unikraft   (portcullis connect unikraft --token-env UKC_TOKEN --default-metro fra)',
  );
  await admin<unknown>('POST', '/workspaces/default/connections', {
    provider: 'unikraft',
    credential: 'demo-token',
    settings: { metro: 'fra' },
  });
  say('  Portcullis verified the token with the GetUser action before activating the connection.');
  say('  The token is sealed in the vault (AES-256-GCM); no API ever shows it again.');
  const actions = (await admin(
    'GET',
    '/workspaces/default/connections/unikraft/actions',
  )) as Array<{ classification: string; state: string }>;
  const count = (c: string) => actions.filter((a) => a.classification === c).length;
  say(
    `  ${actions.length} actions: ${count('read')} reads (enabled), ${count('write')} writes and ${count('destructive')} destructive (off until enabled).`,
  );

  step(
    'The operator creates an agent and grants it the connection   (portcullis agent create deploy-bot; portcullis grant deploy-bot unikraft --scope all)',
  );
  const { key } = await admin<{ key: string }>('POST', '/workspaces/default/agents', {
    name: 'deploy-bot',
  });
  await admin('POST', '/workspaces/default/grants', {
    agent: 'deploy-bot',
    connection: 'unikraft',
    scope: 'all',
  });
  say(`  The agent's key is shown once: ${key.slice(0, 10)}…`);

  step('The agent connects over MCP with its key and lists its tools');
  const client = new Client({ name: 'demo-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  const { tools } = await client.listTools();
  say(
    `  ${tools.length} tools, all reads, e.g. ${tools
      .slice(0, 3)
      .map((t) => t.name)
      .join(', ')}.`,
  );

  step('The agent calls a read: unikraft_get_user');
  const read = await callTool(client, 'unikraft_get_user', {});
  say(
    `  Allowed. Unikraft (Prism) answered: ${JSON.stringify(read.structuredContent).slice(0, 140)}…`,
  );

  step('The agent tries a write: unikraft_create_volume');
  const args = { body: { name: 'demo-volume', size_mb: 64 } };
  const refused = await callTool(client, 'unikraft_create_volume', args);
  say(
    `  Refused: ${refused.structuredContent?.error?.code} (${refused.structuredContent?.error?.message}).`,
  );

  step('The operator enables that one write   (portcullis enable unikraft unikraft_create_volume)');
  await admin('POST', '/workspaces/default/connections/unikraft/actions/enable', {
    actions: ['unikraft_create_volume'],
  });
  const allowed = await callTool(client, 'unikraft_create_volume', args);
  say(
    `  The same call is now allowed: ${JSON.stringify(allowed.structuredContent).slice(0, 120)}…`,
  );
  await client.close();

  step('Every decision is in the audit log   (portcullis audit)');
  const events = (await admin('GET', '/audit?workspace=default&limit=3')) as Array<
    Record<string, unknown>
  >;
  for (const e of events.reverse()) {
    say(
      `  ${e.at}  ${e.action}  ${e.decision}${e.reason ? ` (${e.reason})` : ''}  ${e.outcome ?? ''}`,
    );
  }
  say(
    '\nDone. Run `npm start` for a gateway of your own; the README says how to connect a provider and an agent.',
  );
} finally {
  await running.close();
  await prism.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
