/**
 * The `portcullis` commands: each parses its flags and calls the same operator
 * verb the admin API calls. `--workspace` defaults to the default workspace.
 */
import { GatewayError } from '../../core/base/errors.ts';
import { didYouMean } from '../../core/base/nearest-word.ts';
import {
  type ActionVerb,
  type ActionView,
  changeActions,
  listActions,
} from '../../core/operator/actions.ts';
import {
  createAdminToken,
  listAdminTokens,
  revokeAdminToken,
} from '../../core/operator/admin-tokens.ts';
import {
  createAgent,
  deleteAgent,
  listAgents,
  revokeAgent,
  rotateAgentKey,
} from '../../core/operator/agents.ts';
import { queryAudit } from '../../core/operator/audit-query.ts';
import { auditChainHead, verifyAuditChain } from '../../core/operator/audit-verify.ts';
import { connectionViews, type RemoteView } from '../../core/operator/connection-views.ts';
import { connect, setConnectionStatus, setCredential } from '../../core/operator/connections.ts';
import { grant, listGrants, revokeGrant } from '../../core/operator/grants.ts';
import { rotateMasterKey } from '../../core/operator/master-key.ts';
import { setAgentTools, setWorkspaceTools } from '../../core/operator/tools-modes.ts';
import { createWorkspace, listWorkspaces } from '../../core/operator/workspaces.ts';
import { approvalCommands } from './approval-commands.ts';
import type { Command, CommandOptions, CommandValues } from './command.ts';
import { changedToolsText } from './contract-change-text.ts';
import { idpCommands } from './idp-commands.ts';
import { limitCommands } from './limit-commands.ts';
import { oauthCommands } from './oauth-commands.ts';
import { printRows, printText, printValue, type Styled, styled } from './output.ts';
import { remoteCommands } from './remote-commands.ts';
import { reviewCommands } from './review-commands.ts';
import { flagCount, flaggedText } from './review-text.ts';

const CLASSES = ['read', 'write', 'destructive'];

const credentialOptions: CommandOptions = {
  'token-env': { type: 'string' },
  'credential-env': { type: 'string', multiple: true },
};

const selectOptions: CommandOptions = {
  class: { type: 'string' },
  all: { type: 'boolean' },
};

const credentialFields = { credential: '--token-env' };

export const commands: Record<string, Command> = {
  'workspace create': {
    usage: 'workspace create <name>',
    summary: 'create a workspace (the tenant boundary)',
    fields: { name: '<name>' },
    run: async ({ ctx, out, args }) => {
      const workspace = await createWorkspace(ctx, { name: arg(args, 0, 'workspace create') });
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
        ['name', 'id', 'toolsMode', 'createdAt'],
        rows,
      );
    },
  },
  'workspace set': {
    usage: 'workspace set --tools direct|discovery|auto [--workspace w]',
    summary:
      "set how the workspace's agents are served their tools, unless an agent has its own mode",
    options: { tools: { type: 'string' } },
    fields: { tools: '--tools' },
    run: async ({ ctx, out, values, workspace }) => {
      const changed = await setWorkspaceTools(ctx, { workspace, tools: values.tools });
      printValue(
        out,
        changed,
        `workspace ${changed.name}: agents without their own tools mode are served ${modeText(changed.toolsMode)}`,
      );
    },
  },
  'agent create': {
    usage: 'agent create <name> [--workspace w]',
    summary: 'create an agent; prints its key once',
    fields: { name: '<name>' },
    run: async ({ ctx, out, args, workspace }) => {
      const { agent, key } = await createAgent(ctx, {
        workspace,
        name: arg(args, 0, 'agent create'),
      });
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
        rows.map((a) => ({
          ...a,
          tools: a.toolsFrom === 'workspace' ? `${a.tools} (workspace)` : a.tools,
        })),
        ['name', 'status', 'tools', 'keyPrefix', 'createdAt', 'revokedAt'],
        rows,
      );
    },
  },
  'agent set': {
    usage: 'agent set <name> --tools direct|discovery|auto|workspace [--workspace w]',
    summary: "set how an agent is served its tools (workspace: follow the workspace's mode)",
    options: { tools: { type: 'string' } },
    fields: { agent: '<name>', tools: '--tools' },
    run: async ({ ctx, out, args, values, workspace }) => {
      const agent = await setAgentTools(ctx, {
        workspace,
        agent: arg(args, 0, 'agent set'),
        tools: values.tools,
      });
      printValue(
        out,
        agent,
        `agent ${agent.name} is served ${modeText(agent.tools)}${agent.toolsFrom === 'workspace' ? " (its workspace's mode)" : ''}`,
      );
    },
  },
  'agent revoke': {
    usage: 'agent revoke <name> [--workspace w]',
    summary: "revoke an agent's key; its next call is refused",
    fields: { agent: '<name>' },
    run: async ({ ctx, out, args, workspace }) => {
      const agent = await revokeAgent(ctx, { workspace, agent: arg(args, 0, 'agent revoke') });
      printValue(
        out,
        agent,
        agent.changed
          ? `revoked agent ${agent.name}`
          : `agent ${agent.name} was revoked already (at ${agent.revokedAt}); nothing changed`,
      );
    },
  },
  'agent rotate-key': {
    usage: 'agent rotate-key <name> [--workspace w]',
    summary: 'give an agent a new key, printed once; the old key is refused at once',
    fields: { agent: '<name>' },
    run: async ({ ctx, out, args, workspace }) => {
      const { agent, key } = await rotateAgentKey(ctx, {
        workspace,
        agent: arg(args, 0, 'agent rotate-key'),
      });
      printValue(
        out,
        { agent, key },
        `new key for agent ${agent.name}; the old one is refused from now on\n\nagent key (shown once; give it to the agent as its Bearer token):\n${key}`,
      );
    },
  },
  'agent delete': {
    usage: 'agent delete <name> [--workspace w]',
    summary: 'delete an agent with its grants and consents; the audit log keeps its history',
    fields: { agent: '<name>' },
    run: async ({ ctx, out, args, workspace }) => {
      const agent = await deleteAgent(ctx, { workspace, agent: arg(args, 0, 'agent delete') });
      printValue(
        out,
        agent,
        `deleted agent ${agent.name}: its grants, credentials and consents are gone; the audit log keeps its history`,
      );
    },
  },
  connect: {
    usage:
      'connect <provider> (--token-env VAR | --credential-env field=VAR ...) [--default-metro m] [--setting k=v]... [--name n]',
    summary: 'connect a provider; verifies the credential first',
    fields: {
      ...credentialFields,
      provider: '<provider>',
      name: '--name',
      'settings.metro': '--default-metro',
    },
    options: {
      ...credentialOptions,
      name: { type: 'string' },
      'default-metro': { type: 'string' },
      setting: { type: 'string', multiple: true },
    },
    run: async ({ ctx, gateway, out, args, values, workspace, env }) => {
      const provider = gateway.catalogs.getOrThrow(arg(args, 0, 'connect'));
      const settings = keyValues(values.setting, '--setting');
      if (typeof values['default-metro'] === 'string') settings.metro = values['default-metro'];
      const connection = await connect(ctx, {
        workspace,
        provider: provider.id,
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
        settings,
        credential: credentialFrom(values, env),
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
      const rows = await connectionViews(ctx, { workspace });
      printRows(
        out,
        rows.map(({ remote, ...c }) => ({
          ...c,
          settings: remote
            ? `${remote.label}${remote.draft ? ` (draft: ${remote.draft})` : ''}${remote.headerNames.length > 0 ? ` headers: ${remote.headerNames.join(', ')}` : ''}${signInText(remote.signIn, c.name)}`
            : Object.entries(c.settings)
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
        connection: arg(args, 0, 'connection disable'),
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
        connection: arg(args, 0, 'connection enable'),
      });
      printValue(out, connection, `connection ${connection.name} enabled`);
    },
  },
  'credential set': {
    usage:
      'credential set <connection> (--token-env VAR | --credential-env field=VAR ...) [--agent a]',
    summary: "rotate a connection's shared credential, or set an agent's personal one",
    options: { ...credentialOptions, agent: { type: 'string' } },
    fields: { ...credentialFields, connection: '<connection>', agent: '--agent' },
    run: async ({ ctx, out, args, values, workspace, env }) => {
      await setCredential(ctx, {
        workspace,
        connection: arg(args, 0, 'credential set'),
        ...(typeof values.agent === 'string' ? { agent: values.agent } : {}),
        credential: credentialFrom(values, env),
      });
      printValue(out, { ok: true }, 'credential verified and stored');
    },
  },
  actions: {
    usage: 'actions <connection> [--class read|write|destructive] [--workspace w]',
    summary: "list a connection's actions with class and state",
    options: { class: { type: 'string' } },
    fields: { connection: '<connection>' },
    run: async ({ ctx, out, args, values, workspace }) => {
      const wanted = values.class === undefined ? undefined : classOf(values.class);
      const rows = (
        await listActions(ctx, { workspace, connection: arg(args, 0, 'actions') })
      ).filter((a) => wanted === undefined || a.classification === wanted);
      const flagged = rows.some((a) => a.flags);
      printRows(
        out,
        rows.map(({ changes: _, flags, app: __, ...a }) => ({
          ...a,
          tool: a.name,
          state: stateText(a),
          flags: flags ? styled('yellow', flagCount(flags)) : '',
        })),
        ['tool', 'classification', 'state', ...(flagged ? ['flags'] : []), 'title'],
        rows,
      );
      printText(out, changedToolsText(rows, arg(args, 0, 'actions')));
      printText(
        out,
        flaggedText(
          rows.map((a) => ({ ...a, tool: a.name })),
          arg(args, 0, 'actions'),
        ),
      );
    },
  },
  ...Object.fromEntries(
    (['enable', 'ask', 'disable', 'review'] as const).map((verb) => [verb, actionVerb(verb)]),
  ),
  'policy set': {
    usage:
      'policy set <connection> [action...] [--class read|write|destructive] [--all] on|off|ask [--force]',
    summary:
      "set actions' policy: on, off, or ask (each call held until an owner or operator approves it)",
    options: { ...selectOptions, force: { type: 'boolean' } },
    fields: {
      connection: '<connection>',
      actions: '[action...], --class or --all',
      classification: '--class',
      force: '--force',
      state: 'on|off|ask',
    },
    run: async (run) => {
      const state = run.args.at(-1);
      const verb =
        state !== undefined && Object.hasOwn(POLICY_STATES, state)
          ? POLICY_STATES[state]
          : undefined;
      if (verb === undefined || run.args.length < 2)
        throw new GatewayError(
          'invalid_input',
          `policy set ends with on, off or ask: portcullis ${commands['policy set']!.usage}`,
          { field: 'on|off|ask' },
        );
      await actionVerb(verb).run({ ...run, args: run.args.slice(0, -1) });
    },
  },
  grant: {
    usage:
      'grant <agent> <connection> [--scope all|reads|actions] [--action a]... [--personal] [--member m, in place of the agent]',
    firstArgumentFlag: 'member',
    summary:
      'let an agent, or a member (every app they approve), use a connection (reads only by default); again, to widen or narrow the grant',
    options: {
      scope: { type: 'string' },
      action: { type: 'string', multiple: true },
      personal: { type: 'boolean' },
      member: { type: 'string' },
    },
    fields: {
      agent: '<agent>',
      member: '--member',
      // A member's name, as the member lookup names it.
      name: '--member',
      connection: '<connection>',
      scope: '--scope',
      actions: '--action',
      credential: '--personal',
    },
    run: async ({ ctx, out, args, values, workspace }) => {
      const actions = (values.action as string[] | undefined) ?? [];
      const member = values.member as string | undefined;
      const { holder, connection } = holderAndConnection(args, member, 'grant');
      const agent = member === undefined ? holder : `member ${member}`;
      const result = await grant(ctx, {
        workspace,
        ...(member === undefined ? { agent: holder } : { member }),
        connection,
        scope: (values.scope as string | undefined) ?? (actions.length > 0 ? 'actions' : 'reads'),
        actions,
        credential: values.personal ? 'personal' : 'shared',
      });
      const terms = (g: { scope: string; actions: string[]; credentialMode: string }) =>
        `${g.scope === 'actions' ? g.actions.join(',') : g.scope} (${g.credentialMode} credential)`;
      const { previous } = result;
      printValue(
        out,
        result,
        previous === undefined
          ? `granted ${agent} ${terms(result)} on ${connection}`
          : terms(previous) === terms(result)
            ? `${agent} already has ${terms(result)} on ${connection}; nothing changed`
            : `changed ${agent}'s grant on ${connection} from ${terms(previous)} to ${terms(result)}`,
      );
    },
  },
  grants: {
    usage: 'grants [--workspace w]',
    summary: "list a workspace's grants (a revoked agent's are marked)",
    run: async ({ ctx, out, workspace }) => {
      const rows = await listGrants(ctx, { workspace });
      printRows(
        out,
        rows.map((g) => ({
          agent:
            'member' in g
              ? `${g.member} (member)`
              : g.agentStatus === 'revoked'
                ? `${g.agent} (revoked)`
                : g.agent,
          connection: g.connection,
          scope: g.scope === 'actions' ? g.actions.join(',') : g.scope,
          credential: g.credentialMode,
        })),
        ['agent', 'connection', 'scope', 'credential'],
        rows,
      );
    },
  },
  'grant revoke': {
    usage: 'grant revoke <agent> <connection> [--member m, in place of the agent]',
    firstArgumentFlag: 'member',
    summary: "remove an agent's or a member's grant",
    options: { member: { type: 'string' } },
    fields: { agent: '<agent>', member: '--member', connection: '<connection>' },
    run: async ({ ctx, out, args, values, workspace }) => {
      const member = values.member as string | undefined;
      const { holder, connection } = holderAndConnection(args, member, 'grant revoke');
      await revokeGrant(ctx, {
        workspace,
        ...(member === undefined ? { agent: holder } : { member }),
        connection,
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
  'admin-token create': {
    usage: 'admin-token create',
    summary: 'make an admin token for the admin HTTP API; prints it once',
    run: async ({ ctx, out }) => {
      const created = await createAdminToken(ctx);
      printValue(
        out,
        created,
        `created admin token ${created.id}\n\nadmin token (shown once; send it as Authorization: Bearer …):\n${created.token}`,
      );
    },
  },
  'admin-token list': {
    usage: 'admin-token list',
    summary: 'list the admin tokens (their ids; a token is shown only when made)',
    run: async ({ ctx, out }) => {
      const rows = await listAdminTokens(ctx);
      printRows(
        out,
        rows.map((t) => ({ ...t })),
        ['id', 'createdAt'],
        rows,
      );
    },
  },
  'admin-token revoke': {
    usage: 'admin-token revoke <id>',
    summary: 'revoke an admin token (its id, or the start of it); its next request is refused',
    fields: { id: '<id>' },
    run: async ({ ctx, out, args }) => {
      const revoked = await revokeAdminToken(ctx, { id: arg(args, 0, 'admin-token revoke') });
      printValue(out, revoked, `revoked admin token ${revoked.id}`);
    },
  },
  'audit verify': {
    usage: 'audit verify [--since t] [--head hash]',
    summary:
      'check the audit log against its hash chain; names the first event that breaks it (exit 1)',
    fields: { since: '--since', head: '--head' },
    options: { since: { type: 'string' }, head: { type: 'string' } },
    run: async ({ ctx, out, values }) => {
      const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
      const report = await verifyAuditChain(ctx, { since: text('since'), head: text('head') });
      const head = report.head === undefined ? 'none' : `${report.head.id} ${report.head.hash}`;
      if (report.firstBreak !== undefined) {
        const { id, problem } = report.firstBreak;
        throw new GatewayError(
          'audit_chain_broken',
          problem === 'head'
            ? 'the head given is no event of the chain (events removed, or another log)'
            : `audit event ${id} breaks the hash chain (${problem === 'hash' ? 'the event is not what was hashed' : 'the event before it is gone or changed'})`,
          { detail: { id, problem } },
        );
      }
      printValue(
        out,
        report,
        `audit chain intact: ${report.checked} events checked; ${report.unchained} unchained, not covered by the chain (stored before migration 0018, or by a build that chained only the journal); head ${head}`,
      );
    },
  },
  'audit head': {
    usage: 'audit head',
    summary: "the audit chain's newest event id and hash, to write down and check against later",
    run: async ({ ctx, out }) => {
      const head = await auditChainHead(ctx);
      printValue(
        out,
        head ?? null,
        head === undefined ? 'no chained event yet' : `${head.id} ${head.hash}`,
      );
    },
  },
  audit: {
    usage:
      'audit [--agent a] [--member m] [--action t] [--decision d] [--reason r] [--since t] [--until t] [--limit n] [--all-workspaces]',
    summary:
      "query the audit log (newest first; JSON lines with --json); --member: a member's events, their agents' and those on their behalf",
    fields: {
      agent: '--agent',
      member: '--member',
      action: '--action',
      decision: '--decision',
      reason: '--reason',
      since: '--since',
      until: '--until',
      limit: '--limit',
    },
    options: {
      agent: { type: 'string' },
      member: { type: 'string' },
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
        ['agent', 'member', 'action', 'decision', 'reason', 'since', 'until', 'limit'].flatMap(
          (k) => (values[k] === undefined ? [] : [[k, values[k]]]),
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
          actor: e.actorName,
          action: e.action,
          decision: e.decision === 'denied' ? styled('red', e.decision) : e.decision,
          reason: e.reason,
          outcome: e.outcome,
          ms: e.latencyMs,
          for: e.onBehalfOf
            ? `${e.onBehalfOf.member}${e.onBehalfOf.idp === undefined ? '' : ` via idp ${e.onBehalfOf.idp}`}`
            : '',
        })),
        // `for`: whom a call on a member's behalf acted for, when any did.
        [
          'at',
          'actor',
          'action',
          'decision',
          'reason',
          'outcome',
          'ms',
          ...(events.some((e) => e.onBehalfOf) ? ['for'] : []),
        ],
      );
    },
  },
  ...oauthCommands,
  ...idpCommands,
  ...limitCommands,
  ...remoteCommands,
  ...reviewCommands,
  ...approvalCommands,
};

/** What `policy set` takes, as the verb that sets it. */
const POLICY_STATES: Readonly<Record<string, ActionVerb>> = {
  on: 'enable',
  off: 'disable',
  ask: 'ask',
};

function actionVerb(verb: ActionVerb): Command {
  return {
    usage: `${verb} <connection> [action...] [--class read|write|destructive] [--all]${verb === 'disable' ? '' : ' [--force]'}`,
    summary: `${verb} actions${verb === 'review' ? ' (approve their current contract)' : ''}${verb === 'ask' ? ' (on, each call held until an owner or operator approves it)' : ''}${verb === 'disable' ? '' : '; --force approves flagged ones where PORTCULLIS_REVIEW_FLAGGED=block holds them'}`,
    options: verb === 'disable' ? selectOptions : { ...selectOptions, force: { type: 'boolean' } },
    fields: {
      connection: '<connection>',
      actions: '[action...], --class or --all',
      classification: '--class',
      force: '--force',
    },
    run: async ({ ctx, out, args, values, workspace }) => {
      const connection = arg(args, 0, verb);
      const actions = args.slice(1);
      const rows = await changeActions(ctx, verb, {
        workspace,
        connection,
        ...(actions.length > 0 ? { actions } : {}),
        ...(typeof values.class === 'string' ? { classification: values.class } : {}),
        ...(values.all ? { all: true } : {}),
        ...(values.force ? { force: true } : {}),
      });
      printRows(
        out,
        rows.map(({ changes: _, flags: __, app: ___, ...a }) => ({
          ...a,
          tool: a.name,
          state: stateText(a),
        })),
        ['tool', 'classification', 'state'],
        rows,
      );
    },
  };
}

/** An action's state as a listing prints it, with why it waits for review (`quarantined (new)`). */
function stateText({ state, review }: Pick<ActionView, 'state' | 'review'>): Styled | string {
  if (review === 'changed') return styled('red', `${state} (contract changed)`);
  if (review === 'new') return styled('yellow', `${state} (new)`);
  return state === 'enabled'
    ? styled('green', state)
    : state === 'ask'
      ? styled('yellow', 'ask (held for approval)')
      : state === 'quarantined'
        ? styled('yellow', state)
        : state;
}

/**
 * The command's `index`th argument; missing, an error naming it from the
 * command's usage (`agent create needs <name>: portcullis agent create <name>`).
 */
/**
 * `<agent> <connection>`, or `--member <member> <connection>`: the agent (or
 * the member flag's value) and the connection, or a usage error naming what is missing.
 */
function holderAndConnection(
  args: string[],
  member: string | undefined,
  command: string,
): { holder: string; connection: string } {
  if (member === undefined)
    return { holder: arg(args, 0, command), connection: arg(args, 1, command) };
  if (args.length > 1)
    throw new GatewayError(
      'invalid_input',
      `${command} takes an agent or --member, not both: portcullis ${command} --member ${member} <connection>`,
      { field: '--member' },
    );
  const connection = args[0];
  if (!connection)
    throw new GatewayError(
      'invalid_input',
      `${command} needs <connection>: portcullis ${command} --member ${member} <connection>`,
      { field: '<connection>' },
    );
  return { holder: member, connection };
}

function arg(args: string[], index: number, command: string): string {
  const value = args[index];
  if (value) return value;
  const usage = commands[command]?.usage ?? command;
  const placeholder = usage.match(/<[^>]+>/g)?.[index] ?? `argument ${index + 1}`;
  throw new GatewayError('invalid_input', `${command} needs ${placeholder}: portcullis ${usage}`, {
    field: placeholder,
  });
}

/** A tools mode, as a person reads it. */
function modeText(mode: string): string {
  if (mode === 'discovery')
    return 'the discovery tools (search_actions, describe_action, call_action)';
  if (mode === 'auto')
    return 'the discovery tools once it may call more tools than the threshold, else each tool';
  return 'each tool it may call';
}

/** `--class`: one of the classes, or an error with the nearest. */
function classOf(value: CommandValues[string]): string {
  const text = String(value);
  if (CLASSES.includes(text)) return text;
  throw new GatewayError(
    'invalid_input',
    `--class: expected one of ${CLASSES.join(', ')}, got ${JSON.stringify(text)}${didYouMean(text, CLASSES)}`,
    { field: '--class' },
  );
}

function keyValues(pairs: CommandValues[string], flag: string): Record<string, string> {
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
function credentialFrom(
  values: CommandValues,
  env: Record<string, string | undefined>,
): string | Record<string, string> {
  if (typeof values['token-env'] === 'string')
    return secretFromEnvironment(env, values['token-env'], '--token-env');
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
      secretFromEnvironment(env, variable, '--credential-env'),
    ]),
  );
}

function secretFromEnvironment(
  env: Record<string, string | undefined>,
  variable: string,
  flag: string,
): string {
  const value = env[variable];
  if (!value)
    throw new GatewayError('invalid_input', `environment variable ${variable} is empty or unset`, {
      field: flag,
    });
  return value;
}

function signInText(signIn: RemoteView['signIn'], connection: string): string {
  if (!signIn) return '';
  if (signIn.state === 'sign_in_required')
    return ` sign_in_required (${signIn.reason}): portcullis connection sign-in ${connection}`;
  const state = signIn.state === 'signed_in' ? ` signed in at ${signIn.issuer}` : ' not signed in';
  return `${state}${signIn.clientCredentials ? ` as the workspace's own client (${signIn.clientCredentials})` : ''}${signIn.onBehalfOf ? `, members' calls on their behalf (${signIn.onBehalfOf.idJag ? `ID-JAG of ${signIn.onBehalfOf.idJag}` : signIn.onBehalfOf.subjectToken})` : ''}`;
}
