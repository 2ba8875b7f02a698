/**
 * The authorization server's commands: members (people who sign in on the
 * consent page), their consents, and the signing key. A password comes from
 * an environment variable named on the command line, never from argv.
 */
import { GatewayError } from '../../core/base/errors.ts';
import {
  addMachineClient,
  listMachineClients,
  removeMachineClient,
} from '../../core/operator/machine-clients.ts';
import {
  addMember,
  listMembers,
  removeMember,
  setMemberPassword,
  setMemberRole,
} from '../../core/operator/members.ts';
import { type ClientView, setClientStepUp, showClient } from '../../core/operator/oauth-clients.ts';
import { listConsents, revokeConsent } from '../../core/operator/oauth-consents.ts';
import { rotateSigningKey } from '../../core/operator/signing-key.ts';
import type { Command } from './command.ts';
import { printRows, printValue } from './output.ts';

const passwordOptions = { 'password-env': { type: 'string' as const } };
const passwordFields = { name: '<name>', password: '--password-env' };

export const oauthCommands: Record<string, Command> = {
  'member add': {
    usage:
      'member add <name> --password-env VAR [--role owner|operator|viewer|member] [--workspace w]',
    summary:
      'add a person who signs in: on the consent page (OAuth clients act for them), and with a role other than member in the console',
    options: { ...passwordOptions, role: { type: 'string' } },
    fields: { ...passwordFields, role: '--role' },
    run: async ({ ctx, out, args, values, env, workspace }) => {
      const member = await addMember(ctx, {
        workspace,
        name: argument(args, 'member add <name>'),
        password: password(values, env),
        ...(values.role === undefined ? {} : { role: values.role }),
      });
      printValue(out, member, `added member ${member.name} (${member.role})`);
    },
  },
  'member role': {
    usage: 'member role <name> <owner|operator|viewer|member> [--workspace w]',
    summary: "change a member's role in the workspace (the console's owner, operator or viewer)",
    fields: { name: '<name>', role: '<role>' },
    run: async ({ ctx, out, args, workspace }) => {
      const member = await setMemberRole(ctx, {
        workspace,
        name: argument(args, 'member role <name> <role>'),
        role: roleArgument(args),
      });
      printValue(out, member, `${member.name} is now ${member.role}`);
    },
  },
  'member list': {
    usage: 'member list [--workspace w]',
    summary: "list a workspace's members",
    run: async ({ ctx, out, workspace }) => {
      const rows = await listMembers(ctx, { workspace });
      printRows(
        out,
        rows.map((m) => ({ ...m })),
        ['name', 'role', 'createdAt', 'updatedAt'],
        rows,
      );
    },
  },
  'member password': {
    usage: 'member password <name> --password-env VAR [--workspace w]',
    summary: "change a member's password",
    options: passwordOptions,
    fields: passwordFields,
    run: async ({ ctx, out, args, values, env, workspace }) => {
      const member = await setMemberPassword(ctx, {
        workspace,
        name: argument(args, 'member password <name>'),
        password: password(values, env),
      });
      printValue(out, member, `changed the password of ${member.name}`);
    },
  },
  'member remove': {
    usage: 'member remove <name> [--workspace w]',
    summary: 'remove a member with its consents; their tokens stop working',
    fields: { name: '<name>' },
    run: async ({ ctx, out, args, workspace }) => {
      const member = await removeMember(ctx, {
        workspace,
        name: argument(args, 'member remove <name>'),
      });
      printValue(out, member, `removed member ${member.name} and everything it authorized`);
    },
  },
  'oauth consents': {
    usage: 'oauth consents [--workspace w]',
    summary: 'list which member let which client act as which agent, with which scopes',
    run: async ({ ctx, out, workspace }) => {
      const rows = await listConsents(ctx, { workspace });
      printRows(
        out,
        rows.map((c) => ({
          id: c.id,
          member: c.member,
          client: c.clientName,
          agent: c.agent,
          scopes: c.scopes.join(' '),
          status: c.status,
        })),
        ['id', 'member', 'client', 'agent', 'scopes', 'status'],
        rows,
      );
    },
  },
  'oauth client': {
    usage: 'oauth client <client id> [--step-up http|result|default] [--workspace w]',
    summary:
      "show a client its members connected and how it steps up for a scope it lacks (HTTP 403, or ChatGPT's isError result); --step-up chooses",
    options: { 'step-up': { type: 'string' } },
    fields: { id: '<client id>', stepUp: '--step-up' },
    run: async ({ ctx, out, args, values, workspace }) => {
      const id = argument(args, 'oauth client <client id>');
      const stepUp = values['step-up'];
      const client =
        stepUp === undefined
          ? await showClient(ctx, { workspace, id })
          : await setClientStepUp(ctx, { workspace, id, stepUp });
      printValue(out, client, stepUpLine(client, stepUp !== undefined));
    },
  },
  'oauth client add': {
    usage: 'oauth client add <name> --machine (--secret | --jwks-uri URL) [--workspace w]',
    summary:
      'register a machine client (client_credentials, ID-JAGs) with an agent of its own name: a secret shown once, or the keys at its JWKS URL',
    options: {
      machine: { type: 'boolean' },
      secret: { type: 'boolean' },
      'jwks-uri': { type: 'string' },
    },
    fields: { name: '<name>', jwksUri: '--jwks-uri' },
    run: async ({ ctx, out, args, values, workspace }) => {
      const jwksUri = values['jwks-uri'];
      if (values.machine !== true || (values.secret === true) === (typeof jwksUri === 'string'))
        throw new GatewayError(
          'invalid_input',
          'portcullis oauth client add <name> --machine takes --secret or --jwks-uri URL (one of them)',
          { field: values.machine === true ? '--secret' : '--machine' },
        );
      const added = await addMachineClient(ctx, {
        workspace,
        name: argument(args, 'oauth client add <name>'),
        ...(typeof jwksUri === 'string' ? { jwksUri } : {}),
      });
      const { client, secret } = added;
      printValue(
        out,
        added,
        secret === undefined
          ? `added machine client ${client.name} (${client.id}), private_key_jwt with the keys at ${client.jwksUri}; grant its agent ${client.name} what it may reach`
          : `added machine client ${client.name} (${client.id}), client_secret_basic; its secret, shown once: ${secret}\ngrant its agent ${client.name} what it may reach`,
      );
    },
  },
  'oauth client list': {
    usage: 'oauth client list [--workspace w]',
    summary: "list a workspace's machine clients and how each authenticates",
    run: async ({ ctx, out, workspace }) => {
      const rows = await listMachineClients(ctx, { workspace });
      printRows(
        out,
        rows.map((c) => ({
          ...c,
          jwksUri: c.jwksUri ?? '',
          grants: c.grants.map((g) => `${g.connection}:${g.scope}`).join(' '),
        })),
        ['name', 'id', 'auth', 'jwksUri', 'grants', 'createdAt'],
        rows,
      );
    },
  },
  'oauth client remove': {
    usage: 'oauth client remove <machine client id or name> [--workspace w]',
    summary:
      'remove a machine client with its agent and grants: its tokens are refused from their next request',
    fields: { client: '<machine client id or name>' },
    run: async ({ ctx, out, args, workspace }) => {
      const client = await removeMachineClient(ctx, {
        workspace,
        client: argument(args, 'oauth client remove <machine client id or name>'),
      });
      printValue(
        out,
        client,
        `removed machine client ${client.name} (${client.id}) and its agent: its tokens are refused from their next request`,
      );
    },
  },
  'oauth revoke': {
    usage: 'oauth revoke <consent id> [--workspace w]',
    summary: 'revoke a consent: its tokens stop working on their next request',
    fields: { id: '<consent id>' },
    run: async ({ ctx, out, args, workspace }) => {
      const consent = await revokeConsent(ctx, {
        workspace,
        id: argument(args, 'oauth revoke <consent id>'),
      });
      printValue(out, consent, `revoked consent ${consent.id} (${consent.clientName})`);
    },
  },
  'oauth rotate-key': {
    usage: 'oauth rotate-key [--revoke-old]',
    summary:
      'a new access-token signing key; tokens signed with the old one keep working, or with --revoke-old (a leaked key) are refused at once',
    options: { 'revoke-old': { type: 'boolean' } },
    run: async ({ ctx, gateway, out, values }) => {
      const revokeOld = values['revoke-old'] === true;
      const rotated = await rotateSigningKey(ctx, gateway.oauth.keys, { revokeOld });
      printValue(
        out,
        rotated,
        revokeOld
          ? `new access tokens are signed with key ${rotated.kid}; tokens signed with ${rotated.revoked?.join(', ') || 'no other key'} are refused from now on, by running servers at their next request`
          : `new access tokens are signed with key ${rotated.kid}; running servers take it within a minute`,
      );
    },
  },
};

const STEP_UP_WORDS = {
  http: 'HTTP 403 with WWW-Authenticate',
  result: 'an isError result carrying the challenge in _meta["mcp/www_authenticate"]',
} as const;
const STEP_UP_WHY = {
  chosen: 'as chosen for it',
  chatgpt: "by default: its redirect URIs are ChatGPT's",
  default: 'by default (PORTCULLIS_OAUTH_STEP_UP, unset: http)',
} as const;

function stepUpLine(client: ClientView, changed: boolean): string {
  return `${client.name} (${client.id}) ${changed ? 'now steps' : 'steps'} up with ${STEP_UP_WORDS[client.form]}, ${STEP_UP_WHY[client.why]}`;
}

function argument(args: string[], usage: string): string {
  const value = args[0];
  if (value) return value;
  const placeholder = usage.match(/<[^>]+>/)?.[0] ?? 'argument 1';
  throw new GatewayError(
    'invalid_input',
    `${usage.split(' <')[0]} needs ${placeholder}: portcullis ${usage}`,
    {
      field: placeholder,
    },
  );
}

function password(
  values: Record<string, unknown>,
  env: Record<string, string | undefined>,
): string {
  const variable = values['password-env'];
  if (typeof variable !== 'string') {
    throw new GatewayError(
      'invalid_input',
      'pass the password through an environment variable: --password-env VAR',
      { field: '--password-env' },
    );
  }
  const value = env[variable];
  if (!value) {
    throw new GatewayError('invalid_input', `environment variable ${variable} is empty or unset`, {
      field: '--password-env',
    });
  }
  return value;
}

function roleArgument(args: string[]): string {
  const role = args[1];
  if (role) return role;
  throw new GatewayError(
    'invalid_input',
    'member role needs <role> (owner, operator, viewer or member): portcullis member role <name> <role>',
    { field: '<role>' },
  );
}
