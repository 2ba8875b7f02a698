/**
 * The command the MCP conformance suite's client credentials scenarios
 * (`auth/client-credentials-basic`, `auth/client-credentials-jwt`) start:
 * Portcullis as a whole, with the scenario's server as a remote connection
 * shared by a workspace whose own client at the upstream's authorization
 * server authenticates by client credentials, as an operator sets it up:
 *
 *   connect the URL (a draft that waits for a sign-in) → `connection auth
 *   --client-credentials <method>` with the scenario's client (a token is
 *   asked for at once, and the draft connected with it) → review and enable
 *   its actions → an operator's agent, granted the connection, calls its
 *   first tool through `/mcp`, carrying the shared credential.
 *
 * A gateway of its own per scenario (SQLite in a temporary folder, loopback
 * upstreams allowed by the development policy). The suite passes the
 * server URL as the last argument and the client in `MCP_CONFORMANCE_CONTEXT`
 * (`client_id` with `client_secret`, or with `private_key_pem` and
 * `signing_algorithm`); `--root <repo>` names the generated catalogs' repo.
 * Exit 0 when the call succeeded, 1 otherwise.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exportJWK, importPKCS8 } from 'jose';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { setConnectionAuth } from '../../runtime/core/operator/remote-auth.ts';
import { connectUrl } from '../../runtime/core/operator/remote-connections.ts';
import { startServer } from '../../runtime/server.ts';
import { isMainModule } from '../is-main-module.ts';
import { callConnectionTool } from './call-connection-tool.ts';
import { runScenarioClient } from './scenario-client.ts';

const CONNECTION = 'upstream';

interface ScenarioClient {
  client_id?: unknown;
  client_secret?: unknown;
  private_key_pem?: unknown;
  signing_algorithm?: unknown;
}

export async function runWorkspaceClient(
  serverUrl: string,
  context: string | undefined,
  root: string,
  log: (line: string) => void,
): Promise<void> {
  const client = JSON.parse(context ?? '{}') as ScenarioClient;
  if (typeof client.client_id !== 'string') throw new TypeError('the scenario names no client_id');
  const running = await startServer(
    configFromEnvironment({
      PORT: '0',
      PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-conformance-workspace-')),
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_SHUTDOWN_DEADLINE_MS: '2000',
      PORTCULLIS_LOG_LEVEL: 'error',
    }),
    pathToFileURL(join(root, 'generated/')),
  );
  try {
    const ctx = running.gateway.operator('conformance');
    const draft = await connectUrl(ctx, { workspace: 'default', url: serverUrl, name: CONNECTION });
    log(`connected as a draft: ${draft.next}`);
    await setConnectionAuth(ctx, {
      workspace: 'default',
      connection: CONNECTION,
      clientId: client.client_id,
      ...(await credentialOf(client)),
    });
    log('the workspace has its own token, by client credentials');
    for (const verb of ['review', 'enable'] as const)
      await changeActions(ctx, verb, { workspace: 'default', connection: CONNECTION, all: true });
    const { key } = await createAgent(ctx, { workspace: 'default', name: 'conformance-agent' });
    await grant(ctx, {
      workspace: 'default',
      agent: 'conformance-agent',
      connection: CONNECTION,
      scope: 'all',
    });
    const called = await callConnectionTool(running.url, key, CONNECTION);
    log(`called ${called} through the gateway`);
  } finally {
    await running.close();
  }
}

/** The scenario's secret as `connection auth` takes it, or its private key as a JWK. */
async function credentialOf(
  client: ScenarioClient,
): Promise<
  | { clientCredentials: 'client_secret_basic'; clientSecret: string }
  | { clientCredentials: 'private_key_jwt'; clientKey: string }
> {
  if (typeof client.client_secret === 'string')
    return { clientCredentials: 'client_secret_basic', clientSecret: client.client_secret };
  if (typeof client.private_key_pem !== 'string')
    throw new TypeError('the scenario gives neither a client_secret nor a private_key_pem');
  const alg = typeof client.signing_algorithm === 'string' ? client.signing_algorithm : 'ES256';
  const jwk = await exportJWK(
    await importPKCS8(client.private_key_pem, alg, { extractable: true }),
  );
  return { clientCredentials: 'private_key_jwt', clientKey: JSON.stringify({ ...jwk, alg }) };
}

if (isMainModule(import.meta.url)) runScenarioClient(runWorkspaceClient);
