/**
 * The command the MCP conformance suite's Enterprise-Managed Authorization
 * scenario (`auth/enterprise-managed-authorization`, the ext-auth extension)
 * starts: Portcullis as a whole, with the scenario's IdP as the company's
 * identity provider and the scenario's server as a remote connection whose
 * members' calls carry a token redeemed for an ID-JAG, as an operator and a
 * member set it up:
 *
 *   `idp add` the scenario's IdP → a member, and their sign-in at it kept →
 *   connect the URL (a draft that waits for a sign-in) → `connection auth
 *   --id-jag <idp> --connect-as <member>` with the scenario's client at its
 *   authorization server (the draft connected with the member's token) →
 *   review and enable its actions → the member's client, through the
 *   consent page, calls the first tool through `/mcp`.
 *
 * The scenario's IdP has no sign-in page (it only exchanges tokens): it
 * hands over the ID token a member's sign-in there gave (`idp_id_token`),
 * and this command keeps it where the gateway's IdP sign-in keeps one
 * (the member's identity, and its subject tokens sealed under the master
 * key). The suite passes the server URL as the last argument and the rest
 * in `MCP_CONFORMANCE_CONTEXT`; `--root <repo>` names the generated
 * catalogs' repo. Exit 0 when the call succeeded, 1 otherwise.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeJwt } from 'jose';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { type SubjectTokens, subjectTokensPlace } from '../../runtime/core/model/delegation.ts';
import { changeActions } from '../../runtime/core/operator/actions.ts';
import type { OperatorContext } from '../../runtime/core/operator/context.ts';
import { grant } from '../../runtime/core/operator/grants.ts';
import { addIdentityProvider } from '../../runtime/core/operator/identity-providers.ts';
import { addMember } from '../../runtime/core/operator/members.ts';
import { setConnectionAuth } from '../../runtime/core/operator/remote-auth.ts';
import { connectUrl } from '../../runtime/core/operator/remote-connections.ts';
import { startServer } from '../../runtime/server.ts';
import { consent } from '../../test/support/oauth/consent-bot.ts';
import { isMainModule } from '../is-main-module.ts';
import { callConnectionTool } from './call-connection-tool.ts';
import { runScenarioClient } from './scenario-client.ts';

const CONNECTION = 'upstream';
const IDP = 'company';
const MEMBER = 'demo-user';
const REDIRECT = 'http://127.0.0.1:9/callback';

interface ScenarioContext {
  client_id?: unknown;
  client_secret?: unknown;
  idp_client_id?: unknown;
  idp_id_token?: unknown;
  idp_issuer?: unknown;
}

export async function runEnterpriseClient(
  serverUrl: string,
  context: string | undefined,
  root: string,
  log: (line: string) => void,
): Promise<void> {
  const given = JSON.parse(context ?? '{}') as ScenarioContext;
  const { client_id, client_secret, idp_client_id, idp_id_token, idp_issuer } = given;
  for (const [name, value] of Object.entries({
    client_id,
    client_secret,
    idp_client_id,
    idp_id_token,
    idp_issuer,
  }))
    if (typeof value !== 'string') throw new TypeError(`the scenario gives no ${name}`);
  const running = await startServer(
    configFromEnvironment({
      PORT: '0',
      PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-conformance-enterprise-')),
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      PORTCULLIS_SHUTDOWN_DEADLINE_MS: '2000',
      PORTCULLIS_LOG_LEVEL: 'error',
      // The scenario's IdP takes any client authentication; the gateway sends its own.
      PORTCULLIS_IDP_COMPANY_SECRET: randomBytes(18).toString('base64url'),
    }),
    pathToFileURL(join(root, 'generated/')),
  );
  try {
    const ctx = running.gateway.operator('conformance');
    await addIdentityProvider(
      ctx,
      {
        workspace: 'default',
        name: IDP,
        issuer: idp_issuer as string,
        clientId: idp_client_id as string,
        clientSecretEnv: 'PORTCULLIS_IDP_COMPANY_SECRET',
      },
      running.url,
    );
    const password = randomBytes(18).toString('base64url');
    await addMember(ctx, { workspace: 'default', name: MEMBER, password });
    await keepSignIn(ctx, idp_id_token as string);
    log(`the member's sign-in at ${IDP} is kept`);
    const draft = await connectUrl(ctx, { workspace: 'default', url: serverUrl, name: CONNECTION });
    log(`connected as a draft: ${draft.next}`);
    const set = await setConnectionAuth(ctx, {
      workspace: 'default',
      connection: CONNECTION,
      idJag: IDP,
      connectAs: MEMBER,
      clientId: client_id,
      clientSecret: client_secret,
    });
    log(`members' calls carry ID-JAG tokens; draft connected: ${set.connected !== undefined}`);
    for (const verb of ['review', 'enable'] as const)
      await changeActions(ctx, verb, { workspace: 'default', connection: CONNECTION, all: true });
    const token = await memberAccessToken(ctx, running.url, password);
    const called = await callConnectionTool(running.url, token, CONNECTION);
    log(`called ${called} through the gateway for the member`);
  } finally {
    await running.close();
  }
}

/** The member's identity at the IdP and their ID token, kept as the IdP sign-in keeps them. */
async function keepSignIn(ctx: OperatorContext, idToken: string): Promise<void> {
  const claims = decodeJwt(idToken);
  if (typeof claims.iss !== 'string' || typeof claims.sub !== 'string' || !claims.exp)
    throw new TypeError('the scenario\u2019s ID token has no iss, sub or exp');
  const member = await ctx.store.oauth.members.byName(MEMBER);
  const at = ctx.now().toISOString();
  await ctx.store.identity.addIdentity({
    issuer: claims.iss,
    subject: claims.sub,
    memberId: member!.id,
    providerName: IDP,
    createdAt: at,
    lastSignInAt: at,
  });
  const kept: SubjectTokens = {
    idToken,
    idTokenExpiresAt: new Date(claims.exp * 1000).toISOString(),
  };
  const { sealed } = await ctx.vault.sealUnderCurrent(
    ctx.store,
    subjectTokensPlace(claims.iss, claims.sub),
    JSON.stringify(kept),
  );
  await ctx.store.identity.setSubjectTokens(claims.iss, claims.sub, sealed);
}

/** The member's client: registered, approved on the consent page, its agent granted the connection. */
async function memberAccessToken(
  ctx: OperatorContext,
  url: string,
  password: string,
): Promise<string> {
  const registered = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'conformance member', redirect_uris: [REDIRECT] }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${url}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: REDIRECT,
    scope: 'tools:read tools:write',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const { location } = await consent(authorize, { member: MEMBER, password });
  const tokens = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id,
      code: location.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }),
  });
  const { access_token } = (await tokens.json()) as { access_token: string };
  const workspace = (await ctx.store.workspaces.byName('default'))!;
  const [only] = await ctx.store.oauth.consents.list(workspace.id);
  const agent = await ctx.store.agents.byId(workspace.id, only!.agentId);
  await grant(ctx, {
    workspace: 'default',
    agent: agent!.name,
    connection: CONNECTION,
    scope: 'all',
  });
  return access_token;
}

if (isMainModule(import.meta.url)) runScenarioClient(runEnterpriseClient);
