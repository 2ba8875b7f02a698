/**
 * A master key rotation by the `portcullis` command while the gateway runs
 * (SQLite and PostgreSQL), against oidc-provider on loopback: a connection's
 * shared credential and an agent's personal one signed in, a sign-in with a
 * client the operator entered (its secret a canary) started but not finished. After the rotation
 * every one of those secrets is sealed under the new key only (the key file
 * keeps no old key), the running gateway follows: calls carry the token, a
 * refresh's new tokens are sealed under the new key, the pending sign-in
 * finishes with the entered client's secret. Nothing the rotation printed,
 * logged or audited holds a token or the secret. After a restart (only the
 * new key loaded) every credential still works.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../../../../runtime/compose/log.ts';
import {
  clientSecretPlace,
  signInPlace,
  tokensPlace,
} from '../../../../../runtime/core/identity/oauth-client/sign-in-secrets.ts';
import type { TokenSet } from '../../../../../runtime/core/identity/oauth-client/upstream-oauth.ts';
import { changeActions } from '../../../../../runtime/core/operator/actions.ts';
import { createAgent } from '../../../../../runtime/core/operator/agents.ts';
import type { OperatorContext } from '../../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../../runtime/core/operator/grants.ts';
import { connectUrl } from '../../../../../runtime/core/operator/remote-connections.ts';
import { signIn } from '../../../../../runtime/core/operator/remote-sign-in.ts';
import { KEY_FILE, reloadKeyring } from '../../../../../runtime/core/vault/key-file.ts';
import { masterKey } from '../../../../../runtime/core/vault/keyring.ts';
import { openSecret, sealedKeyId } from '../../../../../runtime/core/vault/sealed-secret.ts';
import {
  adminClient,
  callTool,
  mcpClient,
  startTestGateway,
  type TestGateway,
} from '../../../../support/gateway.ts';
import { testSchemas } from '../../../../support/postgres.ts';
import {
  type OAuthUpstream,
  startOAuthUpstream,
} from '../../../../support/remote/oauth-upstream.ts';
import { SignInBrowser, signInThrough } from '../../../../support/remote/sign-in-browser.ts';
import { connectSignedIn, expireStoredTokens } from '../../../../support/remote/signed-in.ts';
import { runPortcullisHere } from '../../../../support/run-cli.ts';

const CANARY = 'canary-entered-secret-3f8d1c6b';
const DEV = { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' };
const schemas = testSchemas();
afterAll(() => schemas.dropAll());

describe.each([
  ['SQLite', async (): Promise<string | undefined> => undefined],
  ['PostgreSQL', async () => schemas.urlFor(await schemas.create())],
])('a master key rotation by the command (%s)', (_, database) => {
  const logged: string[] = [];
  let databaseUrl: string | undefined;
  let gateway: TestGateway;
  let ctx: OperatorContext;
  let upstream: OAuthUpstream;
  /** Registration off: a client must be entered by hand. */
  let entered: OAuthUpstream;
  let shared: { connectionId: string; key: string };

  beforeAll(async () => {
    databaseUrl = await database();
    gateway = await startTestGateway({
      environment: DEV,
      ...(databaseUrl ? { databaseUrl } : {}),
      log: createLog({
        level: 'debug',
        destination: { write: (line: string) => logged.push(line) },
      }),
    });
    [upstream, entered] = await Promise.all([
      startOAuthUpstream({ tenant: 'rotation' }),
      startOAuthUpstream({
        tenant: 'entered',
        registration: false,
        clients: [
          {
            client_id: 'entered-client',
            client_secret: CANARY,
            redirect_uris: [`${gateway.url}/connect/oauth/callback`],
            grant_types: ['authorization_code', 'refresh_token'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
      }),
    ]);
    ctx = gateway.running.gateway.operator('test');
  });
  afterAll(async () => {
    await Promise.all([gateway?.close(), upstream?.close(), entered?.close()]);
  });

  async function workspaceOf(connectionId: string): Promise<string> {
    return (await ctx.store.connections.all()).find((c) => c.id === connectionId)!.workspaceId;
  }

  async function agentId(name: string): Promise<string> {
    return (await ctx.store.agents.list(await workspaceOf(shared.connectionId))).find(
      (a) => a.name === name,
    )!.id;
  }

  it('keeps every upstream OAuth secret working, sealed under the new key only', async () => {
    // A connection's shared credential, and an agent's personal one.
    shared = await connectSignedIn(ctx, upstream, 'shared');
    const mine = await connectSignedIn(ctx, upstream, 'mine', { personal: true });
    const personal = await mcpClient(gateway.url, mine.key);
    const asked = await callTool(personal, 'mine__get_weather', { city: 'Oslo' });
    const link = String(asked.structuredContent?.error?.detail?.signInUrl);
    expect((await signInThrough(new SignInBrowser(), link, 'bob')).html).toContain('Connected');
    expect((await callTool(personal, 'mine__get_weather', { city: 'Oslo' })).isError).toBeFalsy();
    const mineAgent = await agentId('mine-agent');

    // A sign-in with an entered client, started and left pending.
    const draft = await connectUrl(ctx, {
      workspace: 'default',
      url: entered.mcp.url,
      name: 'kept',
    });
    const pending = await signIn(ctx, {
      workspace: 'default',
      connection: 'kept',
      clientId: 'entered-client',
      clientSecret: CANARY,
    });
    const keptId = draft.connection.id;

    // The shared token has expired: the first call after the rotation refreshes it.
    await expireStoredTokens(gateway.running.gateway, shared.connectionId);
    const signedIn = gateway.running.gateway.upstreamSignIn;
    const workspaceId = await workspaceOf(shared.connectionId);
    const before: TokenSet[] = [
      (await signedIn.tokens(workspaceId, shared.connectionId, null).load())!,
      (await signedIn.tokens(workspaceId, mine.connectionId, mineAgent).load())!,
    ];
    const oldKey = gateway.running.gateway.vault.keyring.current.id;

    const rotated = await runPortcullisHere(['master-key', 'rotate', '--json'], {
      ...DEV,
      PORTCULLIS_DATA_DIR: gateway.dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    const result = JSON.parse(rotated.stdout) as { keyId: string; families: object };
    const newKey = result.keyId;
    expect(newKey).not.toBe(oldKey);
    // The key file holds the new key alone.
    const file = JSON.parse(readFileSync(join(gateway.dataDir, KEY_FILE), 'utf8'));
    expect(file.previous).toEqual([]);
    expect(masterKey(Buffer.from(file.current, 'base64url')).id).toBe(newKey);

    // The gateway's first seal after the rotation (it opened nothing since) is under the new key.
    await signIn(ctx, { workspace: 'default', connection: 'shared' });

    // The running gateway follows: the shared call refreshes, the personal one goes as it was.
    const refreshes = upstream.refreshes.length;
    const accepted = upstream.accepted.length;
    const agent = await mcpClient(gateway.url, shared.key);
    expect(await callTool(agent, 'shared__get_weather', { city: 'Oslo' })).toMatchObject({
      structuredContent: { city: 'Oslo', sky: 'sunny' },
    });
    await agent.close();
    expect(upstream.refreshes.slice(refreshes)).toEqual(['ok']);
    expect((await callTool(personal, 'mine__get_weather', { city: 'Bergen' })).isError).toBeFalsy();
    await personal.close();
    expect(upstream.accepted.length).toBeGreaterThan(accepted);

    // The sign-in started before the rotation finishes after it, with the entered client's secret.
    const finished = await signInThrough(new SignInBrowser(), pending.link);
    expect(finished.html).toContain('<h1>Connected</h1>');
    await changeActions(ctx, 'review', { workspace: 'default', connection: 'kept', all: true });
    const { key: keptKey } = await createAgent(ctx, { workspace: 'default', name: 'kept-agent' });
    await grant(ctx, {
      workspace: 'default',
      agent: 'kept-agent',
      connection: 'kept',
      scope: 'all',
    });
    const keptAgent = await mcpClient(gateway.url, keptKey);
    expect((await callTool(keptAgent, 'kept__get_weather', { city: 'Oslo' })).isError).toBeFalsy();
    await keptAgent.close();

    // Every row is under the new key, and opens with only the keys in the file.
    const fileKeys = reloadKeyring(gateway.dataDir, undefined);
    const rows = [
      ...(await ctx.store.upstreamOAuth.tokens.forConnection(shared.connectionId)),
      ...(await ctx.store.upstreamOAuth.tokens.forConnection(mine.connectionId)),
      ...(await ctx.store.upstreamOAuth.tokens.forConnection(keptId)),
    ];
    expect(rows.map((row) => row.agentId)).toEqual([null, null, mineAgent, null]);
    const after: TokenSet[] = [];
    for (const row of rows) {
      expect([row.keyId, sealedKeyId(row.sealed!)]).toEqual([newKey, newKey]);
      after.push(JSON.parse(openSecret(row.sealed!, fileKeys, tokensPlace(row))) as TokenSet);
    }
    // The refreshed shared tokens are new ones; the personal ones were re-sealed as they were.
    expect(after[0]?.accessToken).not.toBe(before[0]?.accessToken);
    expect(after[2]?.accessToken).toBe(before[1]?.accessToken);
    const client = (await ctx.store.upstreamOAuth.clients.byConnection(keptId))!;
    expect(client.keyId).toBe(newKey);
    expect(
      openSecret(client.sealedSecret!, fileKeys, clientSecretPlace(client.workspaceId, keptId)),
    ).toBe(CANARY);
    const signIns = await ctx.store.upstreamOAuth.signIns.all();
    expect(signIns.length).toBeGreaterThan(0);
    for (const row of signIns) {
      expect(row.keyId).toBe(newKey);
      openSecret(
        row.sealed,
        fileKeys,
        signInPlace(row.workspaceId, row.connectionId, row.stateHash),
      );
    }

    // What the command reported re-sealing.
    expect(result.families).toMatchObject({
      upstreamTokens: 3, // shared, the second connection's shared, the personal one
      upstreamClientSecrets: 1,
      pendingSignIns: 1,
    });

    // No token, nor the entered secret, in what the rotation printed, logged or audited.
    const audit = await adminClient(gateway.url, gateway.adminToken!)('GET', '/audit?limit=500');
    expect(audit.text).toContain('master_key.rotate');
    const seen = [rotated.stdout, rotated.stderr, ...logged, audit.text].join('\n');
    const secrets = [
      CANARY,
      ...[...before, ...after].flatMap((t) => [t.accessToken, t.refreshToken]),
    ];
    for (const secret of secrets.filter((s): s is string => s !== undefined)) {
      expect(seen).not.toContain(secret);
      expect(seen).not.toContain(Buffer.from(secret).toString('base64'));
      expect(seen).not.toContain(encodeURIComponent(secret));
    }

    // A restart has only the new key: every credential still works.
    await gateway.close();
    gateway = await startTestGateway({
      dataDir: gateway.dataDir,
      environment: DEV,
      ...(databaseUrl ? { databaseUrl } : {}),
      log: createLog({
        level: 'debug',
        destination: { write: (line: string) => logged.push(line) },
      }),
    });
    for (const [key, tool] of [
      [shared.key, 'shared__get_weather'],
      [mine.key, 'mine__get_weather'],
      [keptKey, 'kept__get_weather'],
    ] as const) {
      const restarted = await mcpClient(gateway.url, key);
      expect(await callTool(restarted, tool, { city: 'Oslo' })).toMatchObject({
        structuredContent: { city: 'Oslo', sky: 'sunny' },
      });
      await restarted.close();
    }
  });
});
