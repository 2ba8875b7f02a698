/**
 * The command the MCP conformance suite's client scenarios start
 * (`conformance client --command "tsx scripts/conformance/oauth-client.ts"`):
 * Portcullis's upstream OAuth engine signs in to the scenario's
 * authorization server, then the repo's upstream MCP client talks to the
 * scenario's server with the token: the hello (`server/discover` on
 * 2026-07-28, `initialize` before), `tools/list`, `tools/call test-tool`.
 *
 * The suite passes the server URL as the last argument, the scenario in
 * `MCP_CONFORMANCE_SCENARIO`, the wire revision in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and a preregistered client in
 * `MCP_CONFORMANCE_CONTEXT` (which stands for the deployment's
 * `PORTCULLIS_TOOL_OAUTH_CLIENT_ID` / `_SECRET`). The development policy
 * applies (the suite's servers are on loopback); every byte goes through the
 * guarded client. Exit 0 when every request succeeded, 1 otherwise (some
 * scenarios expect the client to refuse).
 */
import { publicError } from '../../runtime/core/base/errors.ts';
import {
  UpstreamClient,
  type UpstreamSession,
} from '../../runtime/core/mcp/client/upstream-client.ts';
import { MODERN_VERSION } from '../../runtime/core/mcp/wire/protocol-version.ts';
import { createGuardedClient } from '../../runtime/core/outbound/guarded-client.ts';
import { isMainModule } from '../is-main-module.ts';
import { OAuthSignIn } from './oauth-sign-in.ts';

/**
 * The suite's fixed Client ID Metadata Document URL (its authorization
 * server accepts it without fetching). In the product the URL is
 * `<PORTCULLIS_PUBLIC_URL>/connect/oauth/client-metadata.json`.
 */
const SUITE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

export async function runOAuthClient(
  serverUrl: string,
  environment: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  const http = createGuardedClient({
    allowPrivateNetworks: true,
    deadlineMs: 20_000,
    reuseConnections: false,
  });
  const signIn = new OAuthSignIn({
    http,
    mcpUrl: new URL(serverUrl),
    env: preregistered(environment.MCP_CONFORMANCE_CONTEXT),
    clientMetadataUrl: SUITE_CLIENT_METADATA_URL,
    log,
  });
  const upstream = new UpstreamClient(http);
  try {
    const modern = environment.MCP_CONFORMANCE_PROTOCOL_VERSION === MODERN_VERSION;
    const session: UpstreamSession = await signIn.call('hello', async (target) => {
      if (!modern) return (await upstream.initialize(target)).session;
      const hello = await upstream.discover(target);
      if (!hello) throw new Error('the server does not answer server/discover');
      return hello.session;
    });
    await signIn.call('tools/list', (target) =>
      upstream.request(target, session, 'tools/list', {}),
    );
    await signIn.call('tools/call', (target) =>
      upstream.request(target, session, 'tools/call', { name: 'test-tool', arguments: {} }),
    );
    log('done');
  } finally {
    await signIn.close();
    await http.close();
  }
}

/** The scenario's preregistered client as the deployment's `PORTCULLIS_TOOL_OAUTH_*`. */
function preregistered(context: string | undefined): Record<string, string | undefined> {
  if (!context) return {};
  const parsed = JSON.parse(context) as { client_id?: unknown; client_secret?: unknown };
  return {
    PORTCULLIS_TOOL_OAUTH_CLIENT_ID:
      typeof parsed.client_id === 'string' ? parsed.client_id : undefined,
    PORTCULLIS_TOOL_OAUTH_CLIENT_SECRET:
      typeof parsed.client_secret === 'string' ? parsed.client_secret : undefined,
  };
}

if (isMainModule(import.meta.url)) {
  const serverUrl = process.argv.at(-1) ?? '';
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'unknown';
  const log = (line: string) => console.error(`[${scenario}] ${line}`);
  runOAuthClient(serverUrl, process.env, log).then(
    () => process.exit(0),
    (error: unknown) => {
      const shown = publicError(error);
      log(`failed: ${shown.code}: ${shown.message}`);
      process.exit(1);
    },
  );
}
