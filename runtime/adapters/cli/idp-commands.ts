/**
 * The company's identity providers (`portcullis idp add|list|show|remove`):
 * members sign in to the console and the consent page through them. The
 * client secret is named by the variable the gateway reads it from
 * (`--client-secret-env PORTCULLIS_IDP_…`), never given on the command line.
 */
import { GatewayError } from '../../core/base/errors.ts';
import {
  listMappings,
  mapGroup,
  memberOrigins,
  syncMember,
  unmapGroup,
} from '../../core/operator/identity-groups.ts';
import {
  addIdentityProvider,
  type IdentityProviderView,
  listIdentityProviders,
  removeIdentityProvider,
  showIdentityProvider,
} from '../../core/operator/identity-providers.ts';
import type { Command, CommandValues } from './command.ts';
import { printRows, printValue } from './output.ts';

export const idpCommands: Record<string, Command> = {
  'idp add': {
    usage:
      'idp add <name> --issuer URL --client-id ID --client-secret-env PORTCULLIS_IDP_… [--only] [--name-claim c] [--groups-claim c] [--scope "openid …"] [--role owner|operator|viewer|member] [--id-jag] [--workspace w]',
    summary:
      "let members sign in with the company's OpenID provider (Sign in with <name> on the console and the consent page); --id-jag also trusts its ID-JAGs at the token endpoint",
    options: {
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret-env': { type: 'string' },
      only: { type: 'boolean' },
      'id-jag': { type: 'boolean' },
      'name-claim': { type: 'string' },
      'groups-claim': { type: 'string' },
      scope: { type: 'string' },
      role: { type: 'string' },
    },
    fields: {
      name: '<name>',
      issuer: '--issuer',
      clientId: '--client-id',
      clientSecretEnv: '--client-secret-env',
      nameClaim: '--name-claim',
      groupsClaim: '--groups-claim',
      scopes: '--scope',
      role: '--role',
    },
    run: async ({ ctx, gateway, out, args, values, workspace }) => {
      const optional = (flag: string, field: string) =>
        typeof values[flag] === 'string' ? { [field]: values[flag] } : {};
      const provider = await addIdentityProvider(
        ctx,
        {
          workspace,
          name: nameArgument(args, 'idp add <name>'),
          issuer: values.issuer,
          clientId: values['client-id'],
          clientSecretEnv: values['client-secret-env'],
          only: values.only === true,
          idJag: values['id-jag'] === true,
          ...optional('name-claim', 'nameClaim'),
          ...optional('groups-claim', 'groupsClaim'),
          ...optional('scope', 'scopes'),
          ...optional('role', 'role'),
        },
        gateway.oauth.issuer,
      );
      printValue(
        out,
        provider,
        `added identity provider ${provider.name} (${provider.issuer}); register this redirect URI at it: ${provider.redirectUri}`,
      );
    },
  },
  'idp list': {
    usage: 'idp list [--workspace w]',
    summary: "list the workspace's identity providers",
    run: async ({ ctx, gateway, out, workspace }) => {
      const rows = await listIdentityProviders(ctx, { workspace }, gateway.oauth.issuer);
      printRows(
        out,
        rows.map((p) => ({ ...rowOf(p) })),
        ['name', 'issuer', 'clientId', 'secret', 'only', 'role'],
        rows,
      );
    },
  },
  'idp show': {
    usage: 'idp show <name> [--workspace w]',
    summary:
      'show an identity provider: its issuer, client, claims and the redirect URI to register',
    fields: { name: '<name>' },
    run: async ({ ctx, gateway, out, args, workspace }) => {
      const provider = await showIdentityProvider(
        ctx,
        { workspace, name: nameArgument(args, 'idp show <name>') },
        gateway.oauth.issuer,
      );
      const lines = [
        `${provider.name} (${provider.workspace})`,
        `issuer: ${provider.issuer}`,
        `client id: ${provider.clientId}`,
        `client secret: read from ${provider.clientSecretEnv}`,
        `redirect URI: ${provider.redirectUri}`,
        `scopes: ${provider.scopes}`,
        `name claim: ${provider.nameClaim}`,
        `groups claim: ${provider.groupsClaim ?? '(none)'}`,
        `new members: ${provider.role}`,
        provider.only ? 'the only way to sign in: no password form' : 'offered beside the password',
      ];
      printValue(out, provider, lines.join('\n'));
    },
  },
  'idp remove': {
    usage: 'idp remove <name> [--workspace w]',
    summary: 'stop offering sign-in with an identity provider (its members stay)',
    fields: { name: '<name>' },
    run: async ({ ctx, gateway, out, args, workspace }) => {
      const provider = await removeIdentityProvider(
        ctx,
        { workspace, name: nameArgument(args, 'idp remove <name>') },
        gateway.oauth.issuer,
      );
      printValue(out, provider, `removed identity provider ${provider.name}`);
    },
  },
  'idp map': {
    usage:
      'idp map <idp> --group <g> (--role operator|viewer | --grant <connection> [--scope reads|all]) [--workspace w]',
    summary:
      'give the members of a group at the IdP a role or a grant, applied at each of their sign-ins (gone at the first without the group)',
    options: mappingOptions(),
    fields: mappingFields(),
    run: async ({ ctx, out, args, values, workspace }) => {
      const mapping = await mapGroup(ctx, mappingInput(args, values, workspace, 'idp map <idp>'));
      printValue(
        out,
        mapping,
        `members of ${mapping.group} at ${mapping.provider} get ${mapping.role ? `the role ${mapping.role}` : `${mapping.scope} on ${mapping.connection}`} at their next sign-in`,
      );
    },
  },
  'idp unmap': {
    usage: 'idp unmap <idp> --group <g> [--role r | --grant <connection>] [--workspace w]',
    summary: "remove a group's mapping: its members lose what it gave at their next sign-in",
    options: unmapOptions(),
    fields: mappingFields(),
    run: async ({ ctx, out, args, values, workspace }) => {
      const mapping = await unmapGroup(
        ctx,
        mappingInput(args, values, workspace, 'idp unmap <idp>'),
      );
      printValue(out, mapping, `removed the mapping of ${mapping.group} at ${mapping.provider}`);
    },
  },
  'idp maps': {
    usage: 'idp maps <idp> [--workspace w]',
    summary: "list an IdP's group mappings",
    fields: { provider: '<idp>' },
    run: async ({ ctx, out, args, workspace }) => {
      const rows = await listMappings(ctx, {
        workspace,
        provider: nameArgument(args, 'idp maps <idp>'),
      });
      printRows(
        out,
        rows.map((m) => ({
          group: m.group,
          role: m.role ?? '',
          grant: m.connection ?? '',
          scope: m.connection ? m.scope : '',
        })),
        ['group', 'role', 'grant', 'scope'],
        rows,
      );
    },
  },
  'idp sync': {
    usage: 'idp sync <member> [--workspace w]',
    summary:
      "read a member's groups again at their IdP now (its refresh token; the IdP's secret must be in this command's environment too)",
    fields: { name: '<member>' },
    run: async ({ ctx, gateway, out, args, workspace }) => {
      const rows = await syncMember(
        ctx,
        { workspace, name: nameArgument(args, 'idp sync <member>') },
        (member) => gateway.oauth.syncIdpMember(member),
      );
      printRows(
        out,
        rows.map((r) => ({ ...r })),
        ['provider', 'outcome', 'role'],
        rows,
      );
    },
  },
  'idp origins': {
    usage: 'idp origins <member> [--workspace w]',
    summary:
      "where a member's role and each of their grants came from: an operator, or a group at an IdP",
    fields: { name: '<member>' },
    run: async ({ ctx, out, args, workspace }) => {
      const rows = await memberOrigins(ctx, {
        workspace,
        name: nameArgument(args, 'idp origins <member>'),
      });
      printRows(
        out,
        rows.map((o) => ({ ...o })),
        ['what', 'name', 'from'],
        rows,
      );
    },
  },
};

function mappingOptions() {
  return {
    group: { type: 'string' as const },
    role: { type: 'string' as const },
    grant: { type: 'string' as const },
    scope: { type: 'string' as const },
  };
}

/** A mapping is named by its group and what it gives; the scope it grants is not asked. */
function unmapOptions() {
  const { scope: _scope, ...named } = mappingOptions();
  return named;
}

function mappingFields() {
  return {
    provider: '<idp>',
    group: '--group',
    role: '--role',
    connection: '--grant',
    scope: '--scope',
  };
}

function mappingInput(args: string[], values: CommandValues, workspace: string, usage: string) {
  const optional = (flag: string, field: string) =>
    typeof values[flag] === 'string' ? { [field]: values[flag] } : {};
  return {
    workspace,
    provider: nameArgument(args, usage),
    group: values.group,
    ...optional('role', 'role'),
    ...optional('grant', 'connection'),
    ...optional('scope', 'scope'),
  };
}

function rowOf(provider: IdentityProviderView) {
  return {
    name: provider.name,
    issuer: provider.issuer,
    clientId: provider.clientId,
    secret: provider.clientSecretEnv,
    only: provider.only ? 'yes' : 'no',
    role: provider.role,
  };
}

function nameArgument(args: string[], usage: string): string {
  const name = args[0];
  if (name) return name;
  throw new GatewayError('invalid_input', `missing <name>: portcullis ${usage}`, {
    field: '<name>',
  });
}
