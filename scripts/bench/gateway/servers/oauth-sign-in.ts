/**
 * For the benchmark's `portcullis-oauth` configuration: a member, a
 * registered client, the consent page signed and approved over HTTP (the test
 * harness's consent automation), the code exchanged, and the consent's agent
 * granted what the key's agent has. Answers the access token.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { OperatorContext } from '../../../../runtime/core/operator/context.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { addMember } from '../../../../runtime/core/operator/members.ts';
import { consent } from '../../../../test/support/oauth/consent-bot.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

export async function signInAsMember(ctx: OperatorContext, url: string): Promise<string> {
  const password = randomBytes(18).toString('base64url');
  await addMember(ctx, { workspace: 'default', name: 'bench-member', password });
  const registered = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT] }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${url}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: REDIRECT,
    scope: 'tools:read',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const { location } = await consent(authorize, { member: 'bench-member', password });
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
  const [only] = await ctx.store.oauth.consents.list(
    (await ctx.store.workspaces.byName('default'))!.id,
  );
  const agent = await ctx.store.agents.byId(only!.workspaceId, only!.agentId);
  await grant(ctx, {
    workspace: 'default',
    agent: agent!.name,
    connection: 'unikraft',
    scope: 'reads',
  });
  return access_token;
}
