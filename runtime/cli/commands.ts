/**
 * The `portcullis` commands: each parses its flags and calls the same operator
 * verb the admin API calls. `--workspace` defaults to the default workspace.
 */
import type { ParseArgsConfig } from 'node:util';
import { GatewayError } from '../core/errors.ts';
import { type ActionVerb, changeActions, listActions } from '../core/operator/actions.ts';
import { createAgent, listAgents, revokeAgent } from '../core/operator/agents.ts';
import { queryAudit } from '../core/operator/audit-query.ts';
import {
  connect,
  listConnections,
  setConnectionStatus,
  setCredential,
} from '../core/operator/connections.ts';
import { type OperatorContext, workspaceOrThrow } from '../core/operator/context.ts';
import { grant, listGrants, revokeGrant } from '../core/operator/grants.ts';
import { rotateMasterKey } from '../core/operator/master-key.ts';
import { createWorkspace, listWorkspaces } from '../core/operator/workspaces.ts';
import type { Gateway } from '../open-gateway.ts';
import { type Output, paint, printRows, printValue } from './output.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | string[] | undefined>;

export interface CommandRun {
  ctx: OperatorContext;
  gateway: Gateway;
  out: Output;
  args: string[];
  values: Values;
  workspace: string;
}

export interface Command {
  usage: string;
  summary: string;
  options?: Options;
  run(run: CommandRun): Promise<void>;
}

const credentialOptions: Options = {
  'token-env': { type: 'string' },
  'credential-env': { type: 'string', multiple: true },
};

const selectOptions: Options = {
  class: { type: 'string' },
  all: { type: 'boolean' },
};

export const commands: Record<string, Command> = {
  'workspace create': {
    usage: 'workspace create <name>',
    summary: 'create a workspace (the tenant boundary)',
    run: async ({ ctx, out, args }) => {
      const workspace = await createWorkspace(ctx, { name: arg(args, 0, 'name') });
      printValue(out, workspace, `created workspace ${workspace.name}`);
    },
  },
  'workspace list': {
    usage: 'workspace list',
    summary: 'list workspaces',
    run: async ({ ctx, out }) => {
      const rows = await listWorkspaces(ctx);
      printRows(
        out,
        rows.map((w) => ({ ...w })),
        ['name', 'id', 'createdAt'],
        rows,
      );
    },
  },
  'agent create': {
    usage: 'agent create <name> [--workspace w]',
    summary: 'create an agent; prints its key once',
    run: async ({ ctx, out, args, workspace }) => {
      const { agent, key } = await createAgent(ctx, { workspace, name: arg(args, 0, 'name') });
      printValue(
        out,
        { agent, key },
        `created agent ${agent.name}\n\nagent key (shown once; give it to the agent as its Bearer token):\n${key}`,
      );
    },
  },
  'agent list': {
    usage: 'agent list [--workspace w]',
    summary: "list a workspace's agents",
    run: async ({ ctx, out, workspace }) => {
      const rows = await listAgents(ctx, { workspace });
      printRows(
        out,
        rows.map((a) => ({ ...a })),
        ['name', 'status', 'keyPrefix', 'createdAt', 'revokedAt'],
        rows,
      );
    },
  },
  'agent revoke': {
    usage: 'agent revoke <name> [--workspace w]',
    summary: "revoke an agent's key; its next call is refused",
    run: async ({ ctx, out, args, workspace }) => {
      const agent = await revokeAgent(ctx, { workspace, agent: arg(args, 0, 'agent') });
      printValue(out, agent, `revoked agent ${agent.name}`);
    },
  },
  connect: {
    usage: 'connect <provider> --token-env VAR [--default-metro m] [--setting k=v]... [--name n]',
    summary: 'connect a provider; verifies the credential first',
    options: {
      ...credentialOptions,
      name: { type: 'string' },
      'default-metro': { type: 'string' },
      setting: { type: 'string', multiple: true },
    },
    run: async ({ ctx, gateway, out, args, values, workspace }) => {
      const provider = gateway.catalogs.getOrThrow(arg(args, 0, 'provider'));
      const settings = keyValues(values.setting, '--setting');
      if (typeof values['default-metro'] === 'string') settings.metro = values['default-metro'];
      const connection = await connect(ctx, {
        workspace,
        provider: provider.id,
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
        settings,
        credential: credentialFrom(values),
      });
      printValue(
        out,
        connection,
        `connected ${connection.name} (${provider.manifest.connection.name}); the credential was verified.\nReads are enabled; writes and destructive actions are off until you enable them.`,
      );
    },
  },
  connections: {
    usage: 'connections [--workspace w]',
    summary: "list a workspace's connections",
    run: async ({ ctx, out, workspace }) => {
      const rows = await listConnections(ctx, { workspace });
      printRows(
        out,
        rows.map((c) => ({
          ...c,
          settings: Object.entries(c.settings)
            .map(([k, v]) => `${k}=${v}`)
            .join(' '),
        })),
        ['name', 'provider', 'status', 'health', 'settings'],
        rows,
      );
    },
  },
  'connection disable': {
    usage: 'connection disable <connection>',
    summary: 'take a connection out of service: every call refused, its tools hidden',
    run: async ({ ctx, out, args, workspace }) => {
      const connection = await setConnectionStatus(ctx, 'disabled', {
        workspace,
        connection: arg(args, 0, 'connection'),
      });
      printValue(out, connection, `connection ${connection.name} disabled`);
    },
  },
  'connection enable': {
    usage: 'connection enable <connection>',
    summary: 'put a disabled connection back in service',
    run: async ({ ctx, out, args, workspace }) => {
      const connection = await setConnectionStatus(ctx, 'active', {
        workspace,
        connection: arg(args, 0, 'connection'),
      });
      printValue(out, connection, `connection ${connection.name} enabled`);
    },
  },
  'credential set': {
    usage: 'credential set <connection> --token-env VAR [--agent a]',
    summary: "rotate a connection's shared credential, or set an agent's personal one",
    options: { ...credentialOptions, agent: { type: 'string' } },
    run: async ({ ctx, out, args, values, workspace }) => {
      await setCredential(ctx, {
        workspace,
        connection: arg(args, 0, 'connection'),
        ...(typeof values.agent === 'string' ? { agent: values.agent } : {}),
        credential: credentialFrom(values),
      });
      printValue(out, { ok: true }, 'credential verified and stored');
    },
  },
  actions: {
    usage: 'actions <connection> [--class read|write|destructive] [--workspace w]',
    summary: "list a connection's actions with class and state",
    options: { class: { type: 'string' } },
    run: async ({ ctx, out, args, values, workspace }) => {
      const rows = (
        await listActions(ctx, { workspace, connection: arg(args, 0, 'connection') })
      ).filter((a) => !values.class || a.classification === values.class);
      printRows(
        out,
        rows.map((a) => ({
          ...a,
          state: a.contractChanged
            ? `${a.state} ${paint(out, 'red', '(contract changed)')}`
            : stateText(out, a.state),
        })),
        ['tool', 'classification', 'state', 'title'],
        rows,
      );
    },
  },
  ...Object.fromEntries(
    (['enable', 'disable', 'review'] as const).map((verb) => [verb, actionVerb(verb)]),
  ),
  grant: {
    usage: 'grant <agent> <connection> [--scope all|reads|actions] [--action a]... [--personal]',
    summary: 'let an agent use a connection (reads only by default)',
    options: {
      scope: { type: 'string' },
      action: { type: 'string', multiple: true },
      personal: { type: 'boolean' },
    },
    run: async ({ ctx, out, args, values, workspace }) => {
      const actions = (values.action as string[] | undefined) ?? [];
      const created = await grant(ctx, {
        workspace,
        agent: arg(args, 0, 'agent'),
        connection: arg(args, 1, 'connection'),
        scope: (values.scope as string | undefined) ?? (actions.length > 0 ? 'actions' : 'reads'),
        actions,
        credential: values.personal ? 'personal' : 'shared',
      });
      printValue(
        out,
        created,
        `granted ${arg(args, 0, 'agent')} ${created.scope} on ${arg(args, 1, 'connection')} (${created.credentialMode} credential)`,
      );
    },
  },
  grants: {
    usage: 'grants [--workspace w]',
    summary: "list a workspace's grants",
    run: async ({ ctx, out, workspace }) => {
      const rows = await listGrants(ctx, { workspace });
      const { id } = await workspaceOrThrow(ctx, workspace);
      const [agents, connections] = await Promise.all([
        ctx.store.agents.list(id).then((list) => new Map(list.map((a) => [a.id, a.name]))),
        ctx.store.connections.list(id).then((list) => new Map(list.map((c) => [c.id, c.name]))),
      ]);
      printRows(
        out,
        rows.map((g) => ({
          agent: agents.get(g.agentId) ?? g.agentId,
          connection: connections.get(g.connectionId) ?? g.connectionId,
          scope: g.scope === 'actions' ? g.actions.join(',') : g.scope,
          credential: g.credentialMode,
        })),
        ['agent', 'connection', 'scope', 'credential'],
        rows,
      );
    },
  },
  'grant revoke': {
    usage: 'grant revoke <agent> <connection>',
    summary: 'remove a grant',
    run: async ({ ctx, out, args, workspace }) => {
      await revokeGrant(ctx, {
        workspace,
        agent: arg(args, 0, 'agent'),
        connection: arg(args, 1, 'connection'),
      });
      printValue(out, { ok: true }, 'grant removed');
    },
  },
  'master-key rotate': {
    usage: 'master-key rotate',
    summary: 'new master key; re-seals every credential',
    run: async ({ ctx, out }) => {
      const result = await rotateMasterKey(ctx);
      printValue(
        out,
        result,
        `master key rotated to ${result.keyId}; ${result.resealed} secrets re-sealed`,
      );
    },
  },
  audit: {
    usage:
      'audit [--agent a] [--action t] [--decision d] [--reason r] [--since t] [--until t] [--limit n] [--all-workspaces]',
    summary: 'query the audit log (newest first; JSON lines with --json)',
    options: {
      agent: { type: 'string' },
      action: { type: 'string' },
      decision: { type: 'string' },
      reason: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      'all-workspaces': { type: 'boolean' },
    },
    run: async ({ ctx, out, values, workspace }) => {
      const filters = Object.fromEntries(
        ['agent', 'action', 'decision', 'reason', 'since', 'until', 'limit'].flatMap((k) =>
          values[k] === undefined ? [] : [[k, values[k]]],
        ),
      );
      const events = await queryAudit(ctx, {
        ...(values['all-workspaces'] ? {} : { workspace }),
        ...filters,
      });
      if (out.json) {
        out.write(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
        return;
      }
      printRows(
        out,
        events.map((e) => ({
          at: e.at,
          actor: `${e.actorKind}:${e.actorId ?? ''}`.slice(0, 24),
          action: e.action,
          decision: e.decision === 'denied' ? paint(out, 'red', e.decision) : e.decision,
          reason: e.reason,
          outcome: e.outcome,
          ms: e.latencyMs,
        })),
        ['at', 'actor', 'action', 'decision', 'reason', 'outcome', 'ms'],
      );
    },
  },
};

function actionVerb(verb: ActionVerb): Command {
  return {
    usage: `${verb} <connection> [action...] [--class read|write|destructive] [--all]`,
    summary: `${verb} actions${verb === 'review' ? ' (approve their current contract)' : ''}`,
    options: selectOptions,
    run: async ({ ctx, out, args, values, workspace }) => {
      const [connection, ...actions] = args;
      if (!connection)
        throw new GatewayError('invalid_input', 'name the connection', { field: 'connection' });
      const rows = await changeActions(ctx, verb, {
        workspace,
        connection,
        ...(actions.length > 0 ? { actions } : {}),
        ...(typeof values.class === 'string' ? { classification: values.class } : {}),
        ...(values.all ? { all: true } : {}),
      });
      printRows(
        out,
        rows.map((a) => ({ ...a, state: stateText(out, a.state) })),
        ['tool', 'classification', 'state'],
        rows,
      );
    },
  };
}

function stateText(out: Output, state: string): string {
  return state === 'enabled'
    ? paint(out, 'green', state)
    : state === 'quarantined'
      ? paint(out, 'yellow', state)
      : state;
}

function arg(args: string[], index: number, name: string): string {
  const value = args[index];
  if (!value) throw new GatewayError('invalid_input', `name the ${name}`, { field: name });
  return value;
}

function keyValues(pairs: Values[string], flag: string): Record<string, string> {
  const list = Array.isArray(pairs) ? pairs : [];
  return Object.fromEntries(
    list.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1)
        throw new GatewayError('invalid_input', `${flag} takes key=value`, { field: flag });
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/**
 * Secrets come from environment variables named on the command line, never
 * from the command line itself (where `ps` and shell history would keep them):
 * `--token-env VAR` for a provider's single field, `--credential-env field=VAR` per field.
 */
function credentialFrom(values: Values): string | Record<string, string> {
  if (typeof values['token-env'] === 'string')
    return secretFromEnvironment(values['token-env'], '--token-env');
  const named = keyValues(values['credential-env'], '--credential-env');
  if (Object.keys(named).length === 0) {
    throw new GatewayError(
      'invalid_input',
      'pass the credential through an environment variable: --token-env VAR',
      {
        field: '--token-env',
      },
    );
  }
  return Object.fromEntries(
    Object.entries(named).map(([field, variable]) => [
      field,
      secretFromEnvironment(variable, '--credential-env'),
    ]),
  );
}

function secretFromEnvironment(variable: string, flag: string): string {
  const value = process.env[variable];
  if (!value)
    throw new GatewayError('invalid_input', `environment variable ${variable} is empty or unset`, {
      field: flag,
    });
  return value;
}
