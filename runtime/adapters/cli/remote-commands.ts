/**
 * The remote MCP commands: connect a server by its address or a pasted
 * `mcpServers` snippet, discover its tools again, and disconnect any
 * connection. Secrets come from environment variables named on the command
 * line (`--token-env VAR`, `--header-env Name=VAR`), never from argv.
 */
import { readFileSync } from 'node:fs';
import { GatewayError } from '../../core/base/errors.ts';
import { setConnectionApps } from '../../core/operator/connection-apps.ts';
import { disconnect } from '../../core/operator/disconnect.ts';
import { setConnectionAuth } from '../../core/operator/remote-auth.ts';
import { classifyTool } from '../../core/operator/remote-classify.ts';
import { connectUrl, type RemoteConnectResult } from '../../core/operator/remote-connections.ts';
import { type RefreshReport, refreshRemote } from '../../core/operator/remote-refresh.ts';
import { signIn, signOut } from '../../core/operator/remote-sign-in.ts';
import {
  chooseServer,
  HELP_PROMPT,
  parseMcpServers,
} from '../../core/sources/remote-mcp/mcp-servers-config.ts';
import type { Command } from './command.ts';
import { contractChangeLines } from './contract-change-text.ts';
import { curatedOfferText } from './curated-offer-text.ts';
import { inert, printValue } from './output.ts';

type Env = Record<string, string | undefined>;

const secretOptions = {
  name: { type: 'string' as const },
  'token-env': { type: 'string' as const },
  'header-env': { type: 'string' as const, multiple: true },
};

export const remoteCommands: Record<string, Command> = {
  'connect-url': {
    usage: 'connect-url <url> [--name n] [--token-env VAR | --header-env Name=VAR ...]',
    summary: 'connect a remote MCP server by its address; probes it first',
    options: secretOptions,
    fields: {
      url: '<url>',
      name: '--name',
      token: '--token-env',
      headers: '--header-env',
      credential: '--token-env',
    },
    run: async ({ ctx, out, args, values, env, workspace }) => {
      const url = argument(args, 'connect-url <url>');
      const result = await connectUrl(ctx, {
        workspace,
        url,
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
        ...secretsFrom(values, env),
      });
      printValue(out, result, connectText(result));
    },
  },
  import: {
    usage: 'import <file|-> [--name n] [--server s] [--header-env Name=VAR ...] [--help-prompt]',
    summary: 'connect the remote MCP server of a pasted mcpServers snippet',
    argumentsOptionalWith: 'help-prompt',
    options: {
      name: secretOptions.name,
      'header-env': secretOptions['header-env'],
      server: { type: 'string' },
      'help-prompt': { type: 'boolean' },
    },
    fields: {
      url: '<file|->',
      name: '--name',
      headers: '--header-env',
      credential: '--header-env',
    },
    run: async ({ ctx, out, args, values, env, workspace }) => {
      if (values['help-prompt'] === true) {
        out.write(`${HELP_PROMPT}\n`);
        return;
      }
      const source = argument(args, 'import <file|->');
      const text = readFileSync(source === '-' ? 0 : source, 'utf8');
      const servers = parseMcpServers(text);
      const chosen = chooseServer(
        servers,
        typeof values.server === 'string' ? values.server : undefined,
        { field: '--server', how: 'choose one with --server' },
      );
      const given = keyValues(values['header-env'], '--header-env');
      const resolve = (
        header: string,
        secret: { value?: string; env?: string; placeholder?: string },
      ) => {
        const variable = given[header] ?? secret.env;
        if (variable !== undefined) return fromEnv(env, variable, '--header-env');
        if (secret.value !== undefined) return secret.value;
        throw new GatewayError(
          'invalid_input',
          `header ${header} is a placeholder (${secret.placeholder}); give its value with --header-env ${header}=VAR`,
          { field: '--header-env' },
        );
      };
      const headers = Object.fromEntries(
        chosen.headers.map((h) => [h.header, resolve(h.header, h)]),
      );
      const result = await connectUrl(
        ctx,
        {
          workspace,
          url: chosen.url,
          ...(typeof values.name === 'string' ? { name: values.name } : {}),
          ...(chosen.bearer ? { token: resolve('Authorization', chosen.bearer) } : {}),
          ...(chosen.headers.length > 0 ? { headers } : {}),
        },
        { pastedKey: chosen.name },
      );
      printValue(out, result, connectText(result));
    },
  },
  refresh: {
    usage: 'refresh <connection>',
    summary: "discover a remote MCP connection's tools again; changed ones go to review",
    run: async ({ ctx, out, args, workspace }) => {
      const connection = argument(args, 'refresh <connection>');
      const report = await refreshRemote(ctx, { workspace, connection });
      printValue(out, report, refreshText(report, connection));
    },
  },
  classify: {
    usage: 'classify <connection> <tool> <read|write|destructive|auto>',
    summary: "set a remote tool's class over the automatic rules (auto: back to them)",
    fields: { tool: '<tool>', classification: '<read|write|destructive|auto>' },
    run: async ({ ctx, out, args, workspace }) => {
      const done = await classifyTool(ctx, {
        workspace,
        connection: argument(args, 'classify <connection>'),
        tool: args[1] ?? '',
        classification: args[2] ?? '',
      });
      printValue(out, done, `${inert(done.tool)} is ${done.classification} (${done.rule})`);
    },
  },
  apps: {
    usage: 'apps <connection> <on|off>',
    summary:
      "turn a remote connection's MCP Apps on or off (off: its tools are served without their app, its ui:// pages not at all)",
    fields: { apps: '<on|off>' },
    run: async ({ ctx, out, args, workspace }) => {
      const done = await setConnectionApps(ctx, {
        workspace,
        connection: argument(args, 'apps <connection>'),
        apps: args[1] ?? '',
      });
      printValue(out, done, `MCP Apps are ${done.apps} on ${inert(done.connection)}`);
    },
  },
  'connection sign-in': {
    usage:
      'connection sign-in <connection> [--agent a] [--scope "s1 s2"] [--omit-resource] [--client-id id [--client-secret-env VAR]]',
    summary:
      "print the link that signs a remote MCP connection in at its authorization server (or an agent's own credential)",
    options: {
      agent: { type: 'string' },
      scope: { type: 'string' },
      'omit-resource': { type: 'boolean' },
      'client-id': { type: 'string' },
      'client-secret-env': { type: 'string' },
    },
    fields: {
      connection: '<connection>',
      agent: '--agent',
      scope: '--scope',
      clientId: '--client-id',
      client_id: '--client-id',
      clientSecret: '--client-secret-env',
    },
    run: async ({ ctx, out, args, values, env, workspace }) => {
      const started = await signIn(ctx, {
        workspace,
        connection: argument(args, 'connection sign-in <connection>'),
        ...(typeof values.agent === 'string' ? { agent: values.agent } : {}),
        ...(typeof values.scope === 'string' ? { scope: values.scope } : {}),
        ...(values['omit-resource'] === true ? { omitResource: true } : {}),
        ...(typeof values['client-id'] === 'string' ? { clientId: values['client-id'] } : {}),
        ...(typeof values['client-secret-env'] === 'string'
          ? { clientSecret: fromEnv(env, values['client-secret-env'], '--client-secret-env') }
          : {}),
      });
      printValue(
        out,
        started,
        `${started.connection}: ${started.label}\nOpen this link to sign in; it sends you to ${started.host} (valid until ${started.expiresAt}):\n${started.link}`,
      );
    },
  },
  'connection auth': {
    usage:
      'connection auth <connection> [--on-behalf-of id_token|access_token|portcullis|off] [--audience aud] [--id-jag idp|off] [--connect-as member] [--client-credentials client_secret_basic|private_key_jwt|off] [--client-id id [--client-secret-env VAR | --client-key-env VAR]]',
    summary:
      "how a remote OAuth connection authenticates without a person: members' calls with a token exchanged for theirs (RFC 8693) or redeemed for an ID-JAG of their IdP (--id-jag), the shared credential as the workspace's own client (client credentials)",
    options: {
      'on-behalf-of': { type: 'string' },
      audience: { type: 'string' },
      'id-jag': { type: 'string' },
      'connect-as': { type: 'string' },
      'client-credentials': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret-env': { type: 'string' },
      'client-key-env': { type: 'string' },
    },
    fields: {
      connection: '<connection>',
      onBehalfOf: '--on-behalf-of',
      audience: '--audience',
      idJag: '--id-jag',
      connectAs: '--connect-as',
      clientCredentials: '--client-credentials',
      clientId: '--client-id',
      clientSecret: '--client-secret-env',
      clientKey: '--client-key-env',
    },
    run: async ({ ctx, out, args, values, env, workspace }) => {
      const text = (flag: string) => (typeof values[flag] === 'string' ? values[flag] : undefined);
      const secretOf = (flag: string) => {
        const variable = text(flag);
        return variable === undefined ? undefined : fromEnv(env, variable, `--${flag}`);
      };
      const clientSecret = secretOf('client-secret-env');
      const clientKey = secretOf('client-key-env');
      const done = await setConnectionAuth(ctx, {
        workspace,
        connection: argument(args, 'connection auth <connection>'),
        ...(text('on-behalf-of') !== undefined ? { onBehalfOf: text('on-behalf-of') } : {}),
        ...(text('audience') !== undefined ? { audience: text('audience') } : {}),
        ...(text('id-jag') !== undefined ? { idJag: text('id-jag') } : {}),
        ...(text('connect-as') !== undefined ? { connectAs: text('connect-as') } : {}),
        ...(text('client-credentials') !== undefined
          ? { clientCredentials: text('client-credentials') }
          : {}),
        ...(text('client-id') !== undefined ? { clientId: text('client-id') } : {}),
        ...(clientSecret !== undefined ? { clientSecret } : {}),
        ...(clientKey !== undefined ? { clientKey } : {}),
      });
      const behalf = done.onBehalfOf?.idJag
        ? `members' calls carry a token redeemed for an ID-JAG ${inert(done.onBehalfOf.idJag)} issues for their ID token`
        : done.onBehalfOf
          ? `members' calls carry a token exchanged for their ${done.onBehalfOf.subjectToken}${done.onBehalfOf.audience ? ` (audience ${inert(done.onBehalfOf.audience)})` : ''}`
          : "members' calls carry the connection's own credential";
      const shared = done.clientCredentials
        ? `the shared credential is the workspace's own client (${done.clientCredentials})`
        : "the shared credential is a person's sign-in";
      printValue(
        out,
        done,
        `${inert(done.connection)}: ${behalf}; ${shared}${done.connected ? `\nconnected: its tools wait for review (portcullis connection review ${inert(done.connection)})` : ''}`,
      );
    },
  },
  'connection sign-out': {
    usage: 'connection sign-out <connection> [--agent a]',
    summary:
      "revoke a remote MCP connection's sign-in at its server (RFC 7009) and forget its tokens",
    options: { agent: { type: 'string' } },
    fields: { connection: '<connection>', agent: '--agent' },
    run: async ({ ctx, out, args, values, workspace }) => {
      const done = await signOut(ctx, {
        workspace,
        connection: argument(args, 'connection sign-out <connection>'),
        ...(typeof values.agent === 'string' ? { agent: values.agent } : {}),
      });
      printValue(
        out,
        done,
        `${done.connection}: signed out; ${done.revoked ? 'the tokens were revoked at the server' : 'the server has no revocation endpoint, so the tokens were only forgotten'}`,
      );
    },
  },
  disconnect: {
    usage: 'disconnect <connection>',
    summary:
      'remove a connection with its credentials, grants and upstream sessions (the audit log stays)',
    run: async ({ ctx, out, args, workspace }) => {
      const done = await disconnect(ctx, {
        workspace,
        connection: argument(args, 'disconnect <connection>'),
      });
      printValue(
        out,
        done,
        `disconnected ${done.connection}: its credentials, grants and policies are gone; the audit log keeps its history`,
      );
    },
  },
};

export function connectText(result: RemoteConnectResult): string {
  const offer = result.curated ? `\n${curatedOfferText(result.curated)}` : '';
  return `${nextText(result)}${offer}`;
}

function nextText(result: RemoteConnectResult): string {
  const { connection, endpoint } = result;
  const host = new URL(endpoint.url).host;
  const head = result.curated
    ? `${connection.name}: ${inert(result.curated.name)} (curated) at ${host}`
    : `${connection.name}: unverified server ${host}`;
  switch (result.next) {
    case 'sign_in':
      return `${head} needs a browser sign-in (it publishes OAuth metadata${result.authorizationServers ? `: ${result.authorizationServers.map(inert).join(', ')}` : ''}); kept as a draft. Sign in: portcullis connection sign-in ${connection.name}`;
    case 'credential':
      return `${head} needs a key or headers; kept as a draft. Connect again with --token-env VAR (sent as Authorization: Bearer) or --header-env Name=VAR`;
    case 'review':
      return `connected ${head} (${inert(String(endpoint.revision))}); ${result.tools ? refreshText(result.tools, connection.name) : ''}\nEvery tool, prompt and resource is quarantined until reviewed: portcullis actions ${connection.name}, then portcullis review ${connection.name} --all`;
  }
}

/** What a discovery found; each changed item names the command that reviews it, on `connection`. */
function refreshText(report: RefreshReport, connection: string): string {
  const lines = [
    `${report.tools.length} tools, ${report.features.length} prompts, resources and templates: ${report.added.length} new, ${report.changed.length} changed, ${report.retired.length} retired`,
  ];
  for (const { tool, changes } of report.changed)
    lines.push(
      `  ${inert(tool)} changed: ${changes.map((c) => c.field).join(', ')} (review it again: portcullis review ${connection} ${inert(tool)})`,
      ...contractChangeLines(changes),
    );
  for (const problem of report.problems) lines.push(`  left out: ${inert(problem)}`);
  return lines.join('\n');
}

function secretsFrom(
  values: Record<string, unknown>,
  env: Env,
): { token?: string; headers?: Record<string, string> } {
  const named = keyValues(values['header-env'], '--header-env');
  return {
    ...(typeof values['token-env'] === 'string'
      ? { token: fromEnv(env, values['token-env'], '--token-env') }
      : {}),
    ...(Object.keys(named).length > 0
      ? {
          headers: Object.fromEntries(
            Object.entries(named).map(([h, v]) => [h, fromEnv(env, v, '--header-env')]),
          ),
        }
      : {}),
  };
}

function keyValues(pairs: unknown, flag: string): Record<string, string> {
  const list = Array.isArray(pairs) ? (pairs as string[]) : [];
  return Object.fromEntries(
    list.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1)
        throw new GatewayError('invalid_input', `${flag} takes Name=VAR`, { field: flag });
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

function fromEnv(env: Env, variable: string, flag: string): string {
  const value = env[variable];
  if (!value)
    throw new GatewayError('invalid_input', `environment variable ${variable} is empty or unset`, {
      field: flag,
    });
  return value;
}

function argument(args: string[], usage: string): string {
  const value = args[0];
  if (value) return value;
  const at = usage.indexOf(' <');
  const placeholder = usage.slice(at + 1).split(' ')[0]!;
  throw new GatewayError(
    'invalid_input',
    `${usage.slice(0, at)} needs ${placeholder}: portcullis ${usage}`,
    { field: placeholder },
  );
}
