/**
 * What a tools/call costs with an access token the gateway issued for an
 * ID-JAG (a member's agent, through a trusted IdP) against one with a token
 * of its own client credentials grant, in CPU time of the gateway's process:
 * the real gateway in process (SQLite, governance, audit, the outbound
 * guard) calling a read of the `unikraft` connection on a loopback upstream.
 * The IdP is a loopback OpenID metadata document and JWKS; the ID-JAG is
 * signed with its key. Rounds alternate which goes first; the figure is the
 * median of the rounds' ratios (own / ID-JAG: at least 0.95 is the target).
 *
 *   npm run bench:id-jag
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Caller } from '../../runtime/core/identity/principals/principals.ts';
import { connect } from '../../runtime/core/operator/connections.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { mapGroup } from '../../runtime/core/operator/identity-groups.ts';
import { addIdentityProvider } from '../../runtime/core/operator/identity-providers.ts';
import { addMachineClient } from '../../runtime/core/operator/machine-clients.ts';
import { markdownTable } from './bench-table.ts';
import { alternatingCpu, benchGateway, requestContext } from './in-process.ts';

const CALLS = 400;
const ROUNDS = 9;
const WARMUP = 300;
const ISSUER = 'http://127.0.0.1:9';
const TOOL = 'unikraft_get_autoscale_configuration_policy_by_name';
const ARGS = { path: { uuid: '123e4567-e89b-12d3-a456-426614174000', name: 'p1' } };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function measureIdJagCallCost() {
  const upstream = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'success', path: req.url }));
  });
  const upstreamUrl = await listen(upstream);
  const keys = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
  let idpIssuer = '';
  const idp = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.endsWith('/jwks')) return void res.end(JSON.stringify({ keys: [jwk] }));
    res.end(
      JSON.stringify({
        issuer: idpIssuer,
        authorization_endpoint: `${idpIssuer}/auth`,
        token_endpoint: `${idpIssuer}/token`,
        jwks_uri: `${idpIssuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
      }),
    );
  });
  idpIssuer = `${await listen(idp)}/idp`;
  const bench = await benchGateway('id-jag', {
    PORTCULLIS_PUBLIC_URL: ISSUER,
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=${upstreamUrl}`,
  });
  const { gateway } = bench;
  try {
    const ctx = gateway.operator('bench');
    const workspace = 'default';
    await connect(ctx, { workspace, provider: 'unikraft', credential: 'upstream-token' });
    const { client, secret } = await addMachineClient(ctx, { workspace, name: 'bench-client' });
    await grant(ctx, { workspace, agent: 'bench-client', connection: 'unikraft', scope: 'reads' });
    await addIdentityProvider(
      ctx,
      {
        workspace,
        name: 'acme',
        issuer: idpIssuer,
        clientId: 'portcullis',
        clientSecretEnv: 'PORTCULLIS_IDP_ACME_SECRET',
        groupsClaim: 'groups',
        idJag: true,
      },
      ISSUER,
    );
    await mapGroup(ctx, { workspace, provider: 'acme', group: 'eng', connection: 'unikraft' });
    const basic = `Basic ${Buffer.from(`${client.id}:${secret}`).toString('base64')}`;
    const tokenOf = async (form: Record<string, string>) => {
      const reply = await gateway.oauth.token(form, basic);
      const body = JSON.parse(reply.body) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token: ${reply.body}`);
      return body.access_token;
    };
    const own = await tokenOf({ grant_type: 'client_credentials', scope: 'tools:read' });
    const now = Math.floor(Date.now() / 1000);
    const idJag = await new SignJWT({
      client_id: client.id,
      resource: `${ISSUER}/mcp`,
      scope: 'tools:read',
      groups: ['eng'],
      preferred_username: 'dana',
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'idp-1', typ: 'oauth-id-jag+jwt' })
      .setIssuer(idpIssuer)
      .setSubject('dana')
      .setAudience(ISSUER)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(keys.privateKey);
    const viaIdJag = await tokenOf({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: idJag,
    });
    const context = requestContext('modern', {});
    // Each call authenticates its token as /mcp does (the verdict remembered after the first).
    const callWith = (token: string) => async () => {
      const caller = (await gateway.tools.authenticate(`Bearer ${token}`)) as Caller;
      return gateway.tools.callTool(caller, { ...context, name: TOOL, arguments: ARGS });
    };
    const ownCall = callWith(own);
    const idJagCall = callWith(viaIdJag);
    for (const request of [ownCall, idJagCall]) {
      const called = (await request()) as { isError?: boolean };
      if (called.isError) throw new Error(`the call failed: ${JSON.stringify(called)}`);
    }
    // The ratio is own / ID-JAG: the second of the pair over the first.
    const cost = await alternatingCpu(idJagCall, ownCall, {
      calls: CALLS,
      rounds: ROUNDS,
      warmup: WARMUP,
    });
    return {
      ownUs: cost.secondUs,
      idJagUs: cost.firstUs,
      ratio: cost.ratio,
      calls: CALLS,
      rounds: ROUNDS,
    };
  } finally {
    await bench.close();
    upstream.close();
    idp.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cost = await measureIdJagCallCost();
  console.log(
    markdownTable(
      ['tools/call', 'CPU µs per call (median)', 'own / ID-JAG (median of rounds)'],
      [
        ['with a client credentials token', cost.ownUs.toFixed(0), ''],
        ['with an ID-JAG-issued token', cost.idJagUs.toFixed(0), `${cost.ratio.toFixed(3)}×`],
      ],
    ),
  );
  console.log(
    `${cost.calls} calls a round, ${cost.rounds} rounds; target ≥ 0.95; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
