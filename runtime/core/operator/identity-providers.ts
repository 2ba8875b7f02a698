/**
 * The company's OpenID providers members sign in through (`portcullis idp
 * add|list|show|remove`, issue 35). A provider belongs to the workspace its
 * members are made in; its name is what the pages say ("Sign in with
 * <name>") and its issuer what its ID tokens must say, one provider per
 * issuer. The client secret stays in the gateway's environment
 * (`--client-secret-env PORTCULLIS_IDP_…`): only the variable's name is
 * kept, and no verb shows more than that name.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import { newId } from '../governance/keys.ts';
import { endpointRefusal } from '../identity/oauth-client/endpoint-check.ts';
import { idpRedirectUri } from '../identity/oauth-server/idp-sign-in.ts';
import { IDP_SECRET_PREFIX, type IdentityProvider } from '../model/identity.ts';
import { MEMBER_ROLES } from '../model/oauth.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { NameSchema } from './names.ts';

const ClaimSchema = z.string().regex(/^[A-Za-z0-9_:.\-/]{1,64}$/, 'a claim name');
const AddSchema = z.strictObject({
  workspace: z.string().min(1),
  name: NameSchema,
  issuer: z.string().min(1).max(2_048),
  clientId: z.string().min(1).max(512),
  clientSecretEnv: z
    .string()
    .regex(
      new RegExp(`^${IDP_SECRET_PREFIX}[A-Z0-9_]{1,64}$`),
      `a variable named ${IDP_SECRET_PREFIX}… (upper case, digits, _)`,
    ),
  only: z.boolean().default(false),
  nameClaim: ClaimSchema.default('preferred_username'),
  groupsClaim: ClaimSchema.optional(),
  scopes: z
    .string()
    .regex(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, 'scopes, space separated')
    .refine((text) => text.split(' ').includes('openid'), 'must include openid')
    .default('openid profile email'),
  role: z.enum(MEMBER_ROLES).default('member'),
  /** Trust it to issue ID-JAGs (the JWT bearer grant at the token endpoint). */
  idJag: z.boolean().default(false),
});
const RefSchema = z.strictObject({ workspace: z.string().min(1), name: z.string().min(1) });

/** A provider as the verbs show it: the secret's variable, never a secret. */
export type IdentityProviderView = Omit<IdentityProvider, 'id' | 'workspaceId'> & {
  workspace: string;
  /** The redirect URI to register at the provider. */
  redirectUri: string;
};

export async function addIdentityProvider(
  ctx: OperatorContext,
  input: unknown,
  issuerBase: string,
): Promise<IdentityProviderView> {
  return attempt(ctx, 'idp.add', input, async () => {
    const parsed = parseInput(AddSchema, input);
    const workspace = await workspaceOrThrow(ctx, parsed.workspace);
    // The development policy's loopback http is taken here; a server without it refuses it when signing in.
    const verdict = endpointRefusal(parsed.issuer, { allowPrivateNetworks: true });
    if (verdict.why !== '' || verdict.url.search !== '')
      throw new GatewayError(
        'invalid_input',
        `issuer: an https URL without query, fragment or credentials (${verdict.why || 'query'})`,
        { field: 'issuer' },
      );
    const provider: IdentityProvider = {
      id: newId(),
      workspaceId: workspace.id,
      name: parsed.name,
      // As its ID tokens write it: exactly what was given.
      issuer: parsed.issuer,
      clientId: parsed.clientId,
      clientSecretEnv: parsed.clientSecretEnv,
      only: parsed.only,
      nameClaim: parsed.nameClaim,
      scopes: parsed.scopes,
      groupsClaim: parsed.groupsClaim ?? null,
      role: parsed.role,
      createdAt: ctx.now().toISOString(),
      idJag: parsed.idJag,
    };
    await ctx.store.transaction(async (tx) => {
      await tx.identity.addProvider(provider);
      await audit(ctx, tx, {
        action: 'idp.add',
        workspaceId: workspace.id,
        subject: provider.name,
      });
    });
    return viewOf(provider, workspace.name, issuerBase);
  });
}

export async function listIdentityProviders(
  ctx: OperatorContext,
  input: unknown,
  issuerBase: string,
): Promise<IdentityProviderView[]> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const workspace = await workspaceOrThrow(ctx, ref);
  const providers = await ctx.store.identity.providers();
  return providers
    .filter((provider) => provider.workspaceId === workspace.id)
    .map((provider) => viewOf(provider, workspace.name, issuerBase));
}

export async function showIdentityProvider(
  ctx: OperatorContext,
  input: unknown,
  issuerBase: string,
): Promise<IdentityProviderView> {
  const { workspace: ref, name } = parseInput(RefSchema, input);
  const workspace = await workspaceOrThrow(ctx, ref);
  return viewOf(await providerOrThrow(ctx, workspace.id, name), workspace.name, issuerBase);
}

/** Removes a provider: no one signs in with it any more; the members it made stay, with their identities. */
export async function removeIdentityProvider(
  ctx: OperatorContext,
  input: unknown,
  issuerBase: string,
): Promise<IdentityProviderView> {
  return attempt(ctx, 'idp.remove', input, async () => {
    const { workspace: ref, name } = parseInput(RefSchema, input);
    const workspace = await workspaceOrThrow(ctx, ref);
    const provider = await providerOrThrow(ctx, workspace.id, name);
    await ctx.store.transaction(async (tx) => {
      await tx.identity.removeProvider(provider.id);
      await audit(ctx, tx, {
        action: 'idp.remove',
        workspaceId: workspace.id,
        subject: provider.name,
      });
    });
    return viewOf(provider, workspace.name, issuerBase);
  });
}

export async function providerOrThrow(
  ctx: OperatorContext,
  workspaceId: string,
  name: string,
): Promise<IdentityProvider> {
  const found = await ctx.store.identity.providerByName(name);
  if (found && found.workspaceId === workspaceId) return found;
  const names = (await ctx.store.identity.providers())
    .filter((provider) => provider.workspaceId === workspaceId)
    .map((provider) => provider.name);
  throw new GatewayError(
    'not_found',
    `no identity provider ${name} in this workspace${didYouMean(name, names)}`,
    { field: 'name' },
  );
}

function viewOf(
  provider: IdentityProvider,
  workspace: string,
  issuerBase: string,
): IdentityProviderView {
  const { id: _, workspaceId: __, ...rest } = provider;
  return { ...rest, workspace, redirectUri: idpRedirectUri(issuerBase) };
}
