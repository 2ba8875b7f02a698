/**
 * The agents' side of the gateway, as an MCP tool host: who is calling, which
 * tools they see, and one governed call end to end:
 *
 *   resolve → decide (grant, policy, contract, workspace) → validate the
 *   arguments → resolve the credential → execute → audit → result
 *
 * Every decision and every call leaves one audit event; a refusal is a
 * `GatewayError` with its reason code, which the MCP endpoint turns into an
 * `isError` result.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { BoundedCache } from '../bounded-cache.ts';
import type { CancelSignal } from '../cancellation.ts';
import { GatewayError, REASONS, type ReasonCode } from '../errors.ts';
import { nextHealth } from '../execute/connection-health.ts';
import {
  type Execution,
  healthOutcomeOf,
  type NativeRestExecutor,
} from '../execute/native-rest-executor.ts';
import { auditEvent } from '../governance/audit-event.ts';
import { decide } from '../governance/decide.ts';
import { bearerToken, hashKey } from '../governance/keys.ts';
import type { Agent, Connection, NewAuditEvent } from '../governance/model.ts';
import { refusalMessage } from '../governance/refusal-message.ts';
import type { GovernanceSnapshot, ToolTarget } from '../governance/snapshot.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import { withJsonText } from '../mcp/json-text.ts';
import type { McpPrincipal, ToolHost } from '../mcp/tool-host.ts';
import type { Store } from '../store/store.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';
import { argumentHash, validateArguments } from './arguments.ts';
import type { AuditLog } from './audit-log.ts';
import type { GovernanceCache } from './governance-cache.ts';

export interface GovernedToolsOptions {
  /** Told about failures no caller should see (the operator's log). */
  report?: (error: unknown) => void;
  store: Store;
  audit: AuditLog;
  governance: GovernanceCache;
  vault: CredentialVault;
  executor: NativeRestExecutor;
  now?: () => Date;
}

const REFUSALS: Partial<Record<ReasonCode, string>> = {
  unauthenticated: 'the agent key is not valid',
  tool_unknown: 'no such tool',
  not_granted: 'this agent has no grant for this action',
  connection_inactive: 'the connection is not active',
  action_disabled: 'an operator has disabled this action',
  action_quarantined: 'this action is quarantined until an operator reviews it',
  action_retired: 'this action is no longer in the provider catalog',
  contract_changed:
    "this action's contract changed since it was reviewed; an operator must review it again",
};

export class GovernedTools implements ToolHost {
  readonly #options: GovernedToolsOptions;
  readonly #now: () => Date;
  readonly #report: (error: unknown) => void;
  readonly #tools = new WeakMap<ToolTarget['action'], Map<string, Tool>>();
  /** Per request: the principal `authenticate` returned, and the snapshot it checked. */
  readonly #checked = new WeakMap<McpPrincipal, GovernanceSnapshot>();
  /** sha256 of a presented key, remembered for the keys seen last (every request presents one). */
  readonly #keyHashes = new BoundedCache<string>(10_000);
  /** Calls between their start and their audit event: when one runs alone, it writes at once. */
  #callsRunning = 0;
  readonly #toolLists = new WeakMap<GovernanceSnapshot, Map<string, Tool[]>>();
  readonly #credentials = new WeakMap<
    GovernanceSnapshot,
    Map<string, Promise<Record<string, string> | undefined>>
  >();

  constructor(options: GovernedToolsOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#report = options.report ?? (() => {});
  }

  async authenticate(authorization: string | undefined): Promise<McpPrincipal | undefined> {
    const token = bearerToken(authorization);
    if (!token) return undefined;
    const snapshot = await this.#options.governance.current();
    const agent = snapshot.agentByKeyHash(this.#keyHashes.get(token, hashKey));
    if (agent?.status !== 'active') return undefined;
    const principal = { agentId: agent.id, workspaceId: agent.workspaceId };
    this.#checked.set(principal, snapshot);
    return principal;
  }

  /** The snapshot this request's authentication read (already fresh for it), or a new check. */
  #snapshotFor(principal: McpPrincipal): Promise<GovernanceSnapshot> {
    const checked = this.#checked.get(principal);
    return checked ? Promise.resolve(checked) : this.#options.governance.current();
  }

  async listTools(principal: McpPrincipal): Promise<Tool[]> {
    const snapshot = await this.#snapshotFor(principal);
    const agent = agentOf(snapshot, principal);
    if (!agent) throw new GatewayError('unauthenticated', REFUSALS.unauthenticated!);
    // Serialised once per agent and governance revision: a long list is served as text.
    let lists = this.#toolLists.get(snapshot);
    if (!lists) {
      lists = new Map();
      this.#toolLists.set(snapshot, lists);
    }
    let tools = lists.get(agent.id);
    if (!tools) {
      tools = withJsonText(snapshot.visibleTools(agent).map((target) => this.#toolOf(target)));
      lists.set(agent.id, tools);
    }
    return tools;
  }

  async callTool(
    principal: McpPrincipal,
    name: string,
    args: Record<string, unknown> | undefined,
    cancel: CancelSignal,
  ): Promise<CallToolResult> {
    this.#callsRunning++;
    const record = this.#callRecord(principal, name, args);
    try {
      return await this.#governedCall(principal, name, args, cancel, record);
    } catch (error) {
      // Every call leaves its audit event, one that failed inside the gateway too.
      if (!record.finished)
        await record.finish({ reason: 'internal', outcome: 'error' }).catch(this.#report);
      throw error;
    } finally {
      this.#callsRunning--;
    }
  }

  /**
   * The call's audit event, written once by `finish`. Arguments that cannot
   * be hashed leave the hash empty and are refused once the decision is made.
   */
  #callRecord(
    principal: McpPrincipal,
    name: string,
    args: Record<string, unknown> | undefined,
  ): CallRecord {
    const started = performance.now();
    const event = auditEvent({
      at: this.#now().toISOString(),
      workspaceId: principal.workspaceId,
      actorKind: 'agent',
      actorId: principal.agentId,
      // Tool names are at most 128 characters; an unknown one is not stored whole.
      action: name.slice(0, 128),
      decision: 'denied',
    });
    let argumentProblem: unknown;
    try {
      event.argumentHash = argumentHash(args);
    } catch (error) {
      argumentProblem = error;
    }
    const record: CallRecord = {
      event,
      argumentProblem,
      finished: false,
      finish: async (change) => {
        record.finished = true;
        await this.#options.audit.append(
          {
            ...event,
            ...change,
            latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
          },
          { alone: this.#callsRunning === 1 },
        );
      },
    };
    return record;
  }

  async #governedCall(
    principal: McpPrincipal,
    name: string,
    args: Record<string, unknown> | undefined,
    cancel: CancelSignal,
    { event, finish, argumentProblem }: CallRecord,
  ): Promise<CallToolResult> {
    const snapshot = await this.#snapshotFor(principal);
    const agent = agentOf(snapshot, principal);

    const refuse = async (
      reason: ReasonCode,
      connectionId: string | null,
      message = REFUSALS[reason] ?? reason,
    ): Promise<never> => {
      await finish({ reason, connectionId });
      throw new GatewayError(reason, `${name}: ${message}`);
    };
    if (!agent) return refuse('unauthenticated', null);
    const target = snapshot.resolveTool(agent.workspaceId, name);
    if (!target) return refuse('tool_unknown', null);
    const { connection, action } = target;
    const grant = snapshot.grantOf(agent.id, connection.id);
    const policy = snapshot.policyOf(connection.id, action.name);
    const refusal = decide({ agent, connection, grant, policy, action });
    // A decision of null implies a grant; the second test only tells the compiler so.
    if (refusal !== null || grant === undefined) {
      const reason = refusal ?? 'not_granted';
      return refuse(
        reason,
        connection.id,
        refusalMessage(reason, { agent, connection, grant, action }),
      );
    }
    event.connectionId = connection.id;

    let execution: Execution;
    try {
      if (argumentProblem !== undefined) throw argumentProblem;
      const validated = validateArguments(target.provider, action, args);
      const credential = action.request.credential
        ? await this.#credential(
            snapshot,
            connection,
            grant.credentialMode === 'personal' ? agent.id : null,
          )
        : undefined;
      execution = await this.#options.executor.execute({
        provider: target.provider,
        action: action,
        connection: connection,
        args: validated,
        credential,
        cancel,
      });
    } catch (error) {
      const code = error instanceof GatewayError ? error.code : 'internal';
      const denied = REASONS[code].refusal;
      await this.#recordHealth(connection, healthOutcomeOf(error));
      await finish({
        decision: denied ? 'denied' : 'allowed',
        outcome: denied ? null : 'error',
        reason: code,
      });
      throw error;
    }

    // The call happened: from here on nothing may turn it into a failure the agent
    // would retry. A store that cannot take the bookkeeping is the operator's to see.
    await this.#recordHealth(connection, execution.health);
    await finish({
      decision: 'allowed',
      outcome: execution.result.isError ? 'error' : 'ok',
      reason: execution.result.isError ? 'upstream_status' : null,
      upstreamHost: execution.host,
      upstreamAddress: execution.address,
      upstreamStatus: execution.upstreamStatus,
      requestBytes: execution.requestBytes,
      replyBytes: execution.replyBytes,
    }).catch(this.#report);
    return execution.result;
  }

  /**
   * Opened once per governance revision (a credential change moves the
   * revision); calls arriving while it opens wait for the same opening, and a
   * failed opening is tried again by the next call.
   */
  #credential(
    snapshot: GovernanceSnapshot,
    connection: Connection,
    agentId: string | null,
  ): Promise<Record<string, string> | undefined> {
    let opened = this.#credentials.get(snapshot);
    if (!opened) {
      opened = new Map();
      this.#credentials.set(snapshot, opened);
    }
    const key = `${connection.id}/${agentId ?? ''}`;
    const cached = opened.get(key);
    if (cached !== undefined) return cached;
    const { store, vault } = this.#options;
    const opening = store.credentials
      .forConnection(connection.id, agentId)
      .then((rows) => vault.open(rows));
    opened.set(key, opening);
    opening.catch(() => {
      if (opened.get(key) === opening) opened.delete(key);
    });
    return opening;
  }

  async #recordHealth(
    connection: Connection,
    outcome: Parameters<typeof nextHealth>[1],
  ): Promise<void> {
    const next = nextHealth(connection, outcome);
    if (next.health === connection.health && next.failureStreak === connection.failureStreak)
      return;
    // The snapshot's row is the process's view of health between revisions.
    connection.health = next.health;
    connection.failureStreak = next.failureStreak;
    // Best effort: health is advice for operators, never a reason to fail a call.
    await this.#options.store.connections
      .recordHealth(connection.id, next.health, next.failureStreak, this.#now().toISOString())
      .catch(this.#report);
  }

  #toolOf({ connection, action }: ToolTarget): Tool {
    let byName = this.#tools.get(action);
    if (!byName) {
      byName = new Map();
      this.#tools.set(action, byName);
    }
    const name = toolNameFor(connection, action.name);
    let tool = byName.get(name);
    if (!tool) {
      tool = {
        name,
        title: action.title,
        description: action.description,
        inputSchema: action.inputSchema as Tool['inputSchema'],
        annotations: { ...action.annotations },
      };
      byName.set(name, tool);
    }
    return tool;
  }
}

interface CallRecord {
  event: NewAuditEvent;
  /** Why the arguments could not be hashed, if they could not. */
  argumentProblem: unknown;
  finished: boolean;
  finish(change: Partial<NewAuditEvent>): Promise<void>;
}

function agentOf(snapshot: GovernanceSnapshot, principal: McpPrincipal): Agent | undefined {
  const agent = snapshot.agentById(principal.agentId);
  return agent && agent.workspaceId === principal.workspaceId && agent.status === 'active'
    ? agent
    : undefined;
}
