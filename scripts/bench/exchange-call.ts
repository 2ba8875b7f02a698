/**
 * What a call on a member's behalf costs once its exchanged token is cached
 * (issue 35: "token exchange results are cached so a repeated call adds no
 * upstream round trip"), against a plain call of the same remote tool with
 * the connection's shared token, in CPU time of the gateway's process: the
 * real gateway in process (SQLite, governance, audit, the upstream client
 * and the outbound guard) forwarding to a remote MCP server (2026-07-28)
 * behind a small authorization server (client credentials, token exchange),
 * both in a child process, so their work is not counted. The connection is
 * set with `connection auth` (client credentials for the shared credential,
 * `--on-behalf-of id_token`); the member's subject token is sealed as a
 * sign-in keeps it. Rounds alternate which goes first; the figure is the
 * median of the rounds' ratios; the token requests the server saw during
 * the measured calls are counted (none may be an exchange).
 *
 *   npm run bench:exchange
 */
import { spawn } from 'node:child_process';
import { hashKey, keyPrefixOf, newAgentKey, newId } from '../../runtime/core/governance/keys.ts';
import type { Caller } from '../../runtime/core/identity/principals/principals.ts';
import { subjectTokensPlace } from '../../runtime/core/model/delegation.ts';
import { changeActions } from '../../runtime/core/operator/actions.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { addMember } from '../../runtime/core/operator/members.ts';
import { setConnectionAuth } from '../../runtime/core/operator/remote-auth.ts';
import { connectUrl } from '../../runtime/core/operator/remote-connections.ts';
import { markdownTable } from './bench-table.ts';
import { alternatingCpu, benchGateway, requestContext } from './in-process.ts';

const CALLS = 400;
const ROUNDS = 9;
const WARMUP = 300;

/** The server and its authorization server: prints its port, then one line per token request (`T <grant>`). */
const UPSTREAM = `
const http = require('node:http');
let origin = '';
let issued = 0;
const json = (res, status, body, headers = {}) => { res.writeHead(status, { 'content-type': 'application/json', ...headers }); res.end(JSON.stringify(body)); };
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const path = req.url.split('?')[0];
    if (path.startsWith('/.well-known/oauth-protected-resource'))
      return json(res, 200, { resource: origin + '/mcp', authorization_servers: [origin], scopes_supported: ['mcp'] });
    if (path === '/.well-known/oauth-authorization-server')
      return json(res, 200, { issuer: origin, authorization_endpoint: origin + '/authorize', token_endpoint: origin + '/token', response_types_supported: ['code'], code_challenge_methods_supported: ['S256'], grant_types_supported: ['authorization_code', 'client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'] });
    if (path === '/token') {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      const grant = form.get('grant_type');
      console.log('T ' + grant);
      issued++;
      return json(res, 200, { access_token: 'upstream-' + issued + '-' + grant.length, token_type: 'Bearer', expires_in: 3600, ...(grant.includes('token-exchange') ? { issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' } : {}) });
    }
    if (!/^Bearer upstream-/.test(req.headers.authorization || ''))
      return json(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer resource_metadata="' + origin + '/.well-known/oauth-protected-resource/mcp"' });
    const message = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    const tool = { name: 'read', description: 'Reads', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } };
    let result;
    switch (message.method) {
      case 'server/discover':
        result = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'bench-exchange', version: '1.0.0' } } };
        break;
      case 'tools/list':
        result = { resultType: 'complete', ttlMs: 60000, cacheScope: 'public', tools: [tool] };
        break;
      case 'tools/call':
        result = { resultType: 'complete', content: [{ type: 'text', text: 'read, at once' }] };
        break;
      default:
        return json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
    }
    json(res, 200, { jsonrpc: '2.0', id: message.id, result });
  });
});
server.listen(0, '127.0.0.1', () => { origin = 'http://127.0.0.1:' + server.address().port; console.log(server.address().port); });
`;

export interface ExchangeCallCost {
  /** CPU microseconds per call, median over rounds. */
  plainUs: number;
  exchangedUs: number;
  /** Median of the rounds' on-behalf / plain ratios. */
  ratio: number;
  /** Token requests (of any grant) the server saw while the calls were measured. */
  tokenRequestsMeasured: number;
  calls: number;
  rounds: number;
}

export async function measureExchangeCallCost(): Promise<ExchangeCallCost> {
  const upstream = spawn(process.execPath, ['-e', UPSTREAM], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let tokenRequests = 0;
  const port = await new Promise<string>((resolve, reject) => {
    upstream.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    upstream.once('error', reject);
  });
  upstream.stdout.on('data', (chunk: Buffer) => {
    tokenRequests += chunk
      .toString()
      .split('\n')
      .filter((line) => line.startsWith('T ')).length;
  });
  const bench = await benchGateway('exchange', { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1' });
  const { gateway } = bench;
  try {
    const ctx = gateway.operator('bench');
    const workspace = 'default';
    const connection = 'bench';
    await connectUrl(ctx, { workspace, url: `http://127.0.0.1:${port}/mcp`, name: connection });
    await setConnectionAuth(ctx, {
      workspace,
      connection,
      clientCredentials: 'client_secret_basic',
      clientId: 'bench-client',
      clientSecret: 'bench-client-secret',
      onBehalfOf: 'id_token',
    });
    await changeActions(ctx, 'review', { workspace, connection, all: true });
    const { key: plainKey } = await createAgent(ctx, { workspace, name: 'operator-agent' });
    await grant(ctx, { workspace, agent: 'operator-agent', connection, scope: 'reads' });
    // A member as an IdP sign-in leaves them (an identity, its subject tokens sealed), and an agent of theirs.
    const { store, vault } = gateway;
    const ws = (await store.workspaces.byName(workspace))!;
    await addMember(ctx, { workspace, name: 'carol', password: 'correct horse battery staple' });
    const member = (await store.oauth.members.list(ws.id)).find((m) => m.name === 'carol')!;
    const now = new Date().toISOString();
    const issuer = 'https://idp.bench.example';
    await store.identity.addIdentity({
      issuer,
      subject: 'carol',
      memberId: member.id,
      providerName: 'bench',
      createdAt: now,
      lastSignInAt: now,
    });
    const { sealed } = await vault.sealUnderCurrent(
      store,
      subjectTokensPlace(issuer, 'carol'),
      JSON.stringify({
        idToken: 'bench-id-token',
        idTokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    await store.identity.setSubjectTokens(issuer, 'carol', sealed);
    await grant(ctx, { workspace, member: 'carol', connection, scope: 'reads' });
    const memberKey = newAgentKey();
    await store.transaction((tx) =>
      tx.agents.create(
        {
          id: newId(),
          workspaceId: ws.id,
          name: 'carol-client',
          keyPrefix: keyPrefixOf(memberKey),
          status: 'active',
          createdAt: now,
          revokedAt: null,
          memberId: member.id,
          toolsMode: null,
        },
        hashKey(memberKey),
      ),
    );
    const callerOf = async (key: string) =>
      (await gateway.tools.authenticate(`Bearer ${key}`)) as Caller;
    const [plainCaller, memberCaller] = [await callerOf(plainKey), await callerOf(memberKey)];
    const callOf = (caller: Caller) => () =>
      gateway.tools.callTool(caller, {
        ...requestContext('modern', {}),
        name: 'bench__read',
        arguments: {},
      });
    const plain = callOf(plainCaller);
    const onBehalf = callOf(memberCaller);
    for (const request of [plain, onBehalf]) {
      const called = (await request()) as { isError?: boolean };
      if (called.isError) throw new Error(`the call failed: ${JSON.stringify(called)}`);
    }
    const before = tokenRequests;
    const cost = await alternatingCpu(plain, onBehalf, {
      calls: CALLS,
      rounds: ROUNDS,
      warmup: WARMUP,
    });
    // Lines still in the pipe are counted before the figure is read.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return {
      plainUs: cost.firstUs,
      exchangedUs: cost.secondUs,
      ratio: cost.ratio,
      tokenRequestsMeasured: tokenRequests - before,
      calls: CALLS,
      rounds: ROUNDS,
    };
  } finally {
    await bench.close();
    upstream.kill();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cost = await measureExchangeCallCost();
  console.log(
    markdownTable(
      ['tools/call', 'CPU µs per call (median)', 'on behalf / plain (median of rounds)'],
      [
        ["with the connection's shared token", cost.plainUs.toFixed(0), ''],
        [
          "on a member's behalf, exchanged token cached",
          cost.exchangedUs.toFixed(0),
          `${cost.ratio.toFixed(3)}×`,
        ],
      ],
    ),
  );
  console.log(
    `${cost.calls} calls a round, ${cost.rounds} rounds; token requests during the measured calls: ${cost.tokenRequestsMeasured}`,
  );
}
