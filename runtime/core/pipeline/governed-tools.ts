/**
 * The agents' side of the gateway, as the MCP endpoint's tool backend: who is
 * calling (the principals), which tools they see, and one governed call end
 * to end:
 *
 *   resolve → decide (grant, policy, contract, workspace) → validate the
 *   arguments → resolve the credential → execute (the source's executor) →
 *   audit → result
 *
 * Every decision and every call leaves one audit event; a refusal is a
 * `GatewayError` with its reason code, which the MCP endpoint turns into an
 * `isError` result.
 */
import type {
  CompleteResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/server';
import { TOOL_NAME_MAX } from '../../../generated/catalog-rules.ts';
import { deniedMessage, GatewayError, REASONS, type ReasonCode, reasonOf } from '../base/errors.ts';
import { auditEvent } from '../governance/audit-event.ts';
import { decide } from '../governance/decide.ts';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import type { ToolTarget } from '../governance/tool-source.ts';
import { agentOf, type Caller, type Principals } from '../identity/principals/principals.ts';
import { scopeFor, scopesAllow } from '../identity/principals/scopes.ts';
import type {
  CompletionRequest,
  ListContext,
  PromptOutcome,
  PromptRequest,
  RefusedToolCall,
  ResourceOutcome,
  ResourceRequest,
  ResourceSubscription,
  ServedFeatures,
  SubscribeRequest,
  ToolBackend,
  ToolCall,
  ToolOutcome,
} from '../mcp/server/tool-backend.ts';
import { withJsonText } from '../mcp/wire/json-text.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import type { Agent, Connection, NewAuditEvent } from '../model/governance.ts';
import type { Store } from '../ports/store.ts';
import { nextHealth } from '../sources/connection-health.ts';
import type { Execution, Executors } from '../sources/executor.ts';
import { featureOfKey } from '../sources/remote-mcp/remote-feature-contract.ts';
import type { RemoteMcpExecutor } from '../sources/remote-mcp/remote-mcp-executor.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';
import { argumentHash, validateArguments } from './arguments.ts';
import type { AuditLog } from './audit-log.ts';
import { type FeatureView, ForwardedFeatures } from './forwarded-features.ts';
import type { ToolWatch } from './tool-watch.ts';
import { WorkspaceSecrets } from './workspace-secrets.ts';

export interface GovernedToolsOptions {
  /** Told about failures no caller should see (the operator's log), with the call they belong to. */
  report?: (error: unknown, context?: { tool: string; traceparent?: string }) => void;
  store: Store;
  audit: AuditLog;
  principals: Principals;
  vault: CredentialVault;
  executors: Executors;
  /** Forwards the prompts and resources of remote connections (none served without it). */
  remote?: RemoteMcpExecutor;
  watch: ToolWatch;
  now?: () => Date;
  /** A connection's prompts or resources showed what its pins do not know: discover it again. */
  unpinned?: (connectionId: string) => void;
}

export class GovernedTools implements ToolBackend<Caller> {
  readonly #options: GovernedToolsOptions;
  readonly #now: () => Date;
  readonly #report: NonNullable<GovernedToolsOptions['report']>;
  readonly #tools = new WeakMap<ToolTarget['action'], Map<string, Tool>>();
  /** Calls between their start and their audit event: when one runs alone, it writes at once. */
  #callsRunning = 0;
  readonly #toolLists = new WeakMap<GovernanceSnapshot, Map<string, Tool[]>>();
  readonly #credentials = new WeakMap<
    GovernanceSnapshot,
    Map<string, Promise<Record<string, string> | undefined>>
  >();

  /** What every reply of a workspace is redacted of. */
  readonly #secrets: WorkspaceSecrets;

  /** Prompts and resources of remote connections; `/mcp/c/<connection>` reads them too. */
  readonly features: ForwardedFeatures | undefined;

  constructor(options: GovernedToolsOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#report = options.report ?? (() => {});
    this.#secrets = new WorkspaceSecrets(options.store, options.vault);
    this.features =
      options.remote &&
      new ForwardedFeatures({
        remote: options.remote,
        audit: options.audit,
        credentialOf: (snapshot, connection, agentId) =>
          this.#credential(snapshot, connection, agentId),
        secretsOf: (snapshot, workspaceId) => this.#secrets.of(snapshot, workspaceId),
        now: this.#now,
        report: (error) => this.#report(error),
        ...(options.unpinned ? { unpinned: options.unpinned } : {}),
      });
  }

  async serverCapabilities(caller: Caller, era?: McpEra): Promise<ServedFeatures> {
    return this.features?.served(caller, ALL, era) ?? NOTHING_SERVED;
  }

  async listPrompts(caller: Caller, context?: ListContext): Promise<Prompt[]> {
    return (await this.features?.listPrompts(caller, ALL, context)) ?? [];
  }

  getPrompt(caller: Caller, request: PromptRequest): Promise<PromptOutcome> {
    if (!this.features)
      throw new GatewayError('invalid_params', `Invalid params: no prompt ${request.name}`);
    return this.features.getPrompt(caller, ALL, request);
  }

  async listResources(caller: Caller, context?: ListContext): Promise<Resource[]> {
    return (await this.features?.listResources(caller, ALL, context)) ?? [];
  }

  async listResourceTemplates(caller: Caller, context?: ListContext): Promise<ResourceTemplate[]> {
    return (await this.features?.listResourceTemplates(caller, ALL, context)) ?? [];
  }

  async complete(caller: Caller, request: CompletionRequest): Promise<CompleteResult> {
    if (!this.features) return { completion: { values: [] } };
    return this.features.complete(caller, ALL, request);
  }

  async subscribeResource(
    caller: Caller,
    request: SubscribeRequest,
  ): Promise<ResourceSubscription> {
    if (!this.features)
      throw new GatewayError('resource_not_found', undefined, { detail: { uri: request.uri } });
    return this.features.subscribe(caller, ALL, request);
  }

  readResource(caller: Caller, request: ResourceRequest): Promise<ResourceOutcome> {
    if (!this.features)
      throw new GatewayError('resource_not_found', undefined, { detail: { uri: request.uri } });
    return this.features.readResource(caller, ALL, request);
  }

  /** The caller of `/mcp`, or with `connection` of that connection's endpoint. */
  authenticate(
    authorization: string | undefined,
    connection?: string,
  ): Promise<Caller | undefined> {
    return this.#options.principals.authenticate(authorization, connection);
  }

  async listTools(caller: Caller): Promise<Tool[]> {
    const agent = agentOf(caller);
    if (!agent) throw new GatewayError('unauthenticated');
    return this.#toolListOf(caller.snapshot, agent);
  }

  /** A tool the caller sees (as listed): one it may not call is unknown here, as in its list. */
  describeTool(caller: Caller, name: string): Tool | undefined {
    const { snapshot } = caller;
    const agent = agentOf(caller);
    const target = agent && snapshot.resolveTool(agent.workspaceId, name);
    if (!agent || !target) return undefined;
    const { connection, action } = target;
    const grant = snapshot.grantOf(agent.id, connection.id);
    const policy = snapshot.policyOf(connection.id, action.name);
    return grant && decide({ agent, connection, grant, policy, action }) === null
      ? this.#toolOf(target)
      : undefined;
  }

  async recordRefusedCall(
    caller: Caller,
    call: RefusedToolCall,
    reason: ReasonCode,
  ): Promise<void> {
    const target = caller.snapshot.resolveTool(caller.workspaceId, call.name);
    await this.#callRecord(caller, call).finish({
      reason,
      connectionId: target?.connection.id ?? null,
    });
  }

  watchTools(caller: Caller, listener: () => void): () => void {
    return this.#options.watch.watch(caller, listener);
  }

  async callTool(caller: Caller, call: ToolCall): Promise<ToolOutcome> {
    this.#callsRunning++;
    const record = this.#callRecord(caller, call);
    try {
      return await this.#governedCall(caller, call, record);
    } catch (error) {
      // Every call leaves its audit event, one that failed inside the gateway too.
      if (!record.finished)
        await record.finish({ reason: 'internal', outcome: 'error' }).catch(this.#report);
      throw error;
    } finally {
      this.#callsRunning--;
    }
  }

  /** Serialised once per agent and governance revision: a long list is served as text. */
  #toolListOf(snapshot: GovernanceSnapshot, agent: Agent): Tool[] {
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

  /**
   * The call's audit event, written once by `finish`. Arguments that cannot
   * be hashed leave the hash empty and are refused once the decision is made.
   */
  #callRecord(caller: Caller, call: RefusedToolCall): CallRecord {
    const started = performance.now();
    const event = auditEvent({
      at: this.#now().toISOString(),
      workspaceId: caller.workspaceId,
      actorKind: 'agent',
      actorId: caller.agentId,
      // No tool is named longer; an unknown name is not stored whole.
      action: call.name.slice(0, TOOL_NAME_MAX),
      decision: 'denied',
      traceparent: call.trace?.traceparent ?? null,
    });
    let argumentProblem: unknown;
    try {
      event.argumentHash = argumentHash(call.arguments);
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
    caller: Caller,
    call: ToolCall,
    { event, finish, argumentProblem }: CallRecord,
  ): Promise<ToolOutcome> {
    const { snapshot } = caller;
    const { name } = call;
    const agent = agentOf(caller);

    const refuse = async (
      reason: ReasonCode,
      connectionId: string | null,
      message: string = REASONS[reason].message,
      detail?: Record<string, unknown>,
    ): Promise<never> => {
      await finish({ reason, connectionId });
      throw new GatewayError(reason, `${name}: ${message}`, detail ? { detail } : {});
    };
    if (!agent) return refuse('unauthenticated', null);
    const target = snapshot.resolveTool(agent.workspaceId, name);
    if (!target) {
      // A tool its connection retired is said to be retired, to an agent granted that connection.
      const retired = snapshot.retiredAction(agent.workspaceId, name);
      if (
        retired !== undefined &&
        featureOfKey(retired.action) === undefined &&
        snapshot.grantOf(agent.id, retired.connection.id) !== undefined
      )
        return refuse(
          'action_retired',
          retired.connection.id,
          `connection ${retired.connection.name} no longer offers ${retired.action}; it was retired`,
        );
      return refuse('tool_unknown', null);
    }
    const { connection, action, source } = target;
    const grant = snapshot.grantOf(agent.id, connection.id);
    const policy = snapshot.policyOf(connection.id, action.name);
    const denial = decide({ agent, connection, grant, policy, action });
    // A decision of null implies a grant; the second test only tells the compiler so.
    if (denial !== null || grant === undefined) {
      const reason = denial ?? 'not_granted';
      return refuse(
        reason,
        connection.id,
        deniedMessage(reason, {
          agent: agent.name,
          connection: connection.name,
          action: action.name,
          classification: action.classification,
          grantScope: grant?.scope,
        }),
      );
    }
    // An access token's scopes narrow what the grant allows; they never widen it.
    if (caller.scopes !== undefined) {
      if (!scopesAllow(caller.scopes, action.classification, connection.name)) {
        const scope = scopeFor(action.classification);
        return refuse(
          'insufficient_scope',
          connection.id,
          `this ${action.classification} needs the scope ${scope} (or ${scope}:${connection.name}); ask for it again with that scope`,
          // The scopes the token has and the one it lacks: a client that asks for
          // exactly these steps up without losing what it could do.
          { scope: [...new Set([...caller.scopes, scope])].join(' ') },
        );
      }
    }
    event.connectionId = connection.id;

    const executor = this.#options.executors.for(source.kind);
    let execution: Execution;
    try {
      if (argumentProblem !== undefined) throw argumentProblem;
      const validated = validateArguments(source, action, call.arguments);
      const credential = source.sendsCredential(action)
        ? await this.#credential(
            snapshot,
            connection,
            grant.credentialMode === 'personal' ? agent.id : null,
          )
        : undefined;
      execution = await executor.execute({
        target,
        arguments: validated,
        credential,
        credentialOwner: grant.credentialMode === 'personal' ? agent.id : null,
        secrets: await this.#secrets.of(snapshot, agent.workspaceId),
        cancel: call.cancel,
        clientCapabilities: call.clientCapabilities,
        era: call.era,
        progress: call.progress,
        log: call.log,
        input: call.input,
      });
    } catch (error) {
      const code = reasonOf(error);
      const denied = REASONS[code].audited === 'denied';
      await this.#recordHealth(
        connection,
        executor.healthOutcomeOf(error, {
          credentialOwner: grant.credentialMode === 'personal' ? agent.id : null,
        }),
      );
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
    const failed = 'isError' in execution.outcome && execution.outcome.isError === true;
    await finish({
      decision: 'allowed',
      outcome: failed ? 'error' : 'ok',
      reason: failed ? 'upstream_status' : null,
      upstreamHost: execution.host,
      upstreamAddress: execution.address,
      upstreamStatus: execution.upstreamStatus,
      requestBytes: execution.requestBytes,
      replyBytes: execution.replyBytes,
    }).catch((error: unknown) =>
      this.#report(error, {
        tool: name,
        ...(call.trace ? { traceparent: call.trace.traceparent } : {}),
      }),
    );
    return execution.outcome;
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
      .catch((error: unknown) => this.#report(error));
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
        // What the OpenAI Apps SDK and other clients read: the scope this tool needs.
        securitySchemes: [{ type: 'oauth2', scopes: [scopeFor(action.classification)] }],
      } as Tool;
      byName.set(name, tool);
    }
    return tool;
  }
}

const ALL: FeatureView = { only: undefined };
const NOTHING_SERVED: ServedFeatures = { prompts: false, resources: false };

interface CallRecord {
  event: NewAuditEvent;
  /** Why the arguments could not be hashed, if they could not. */
  argumentProblem: unknown;
  finished: boolean;
  finish(change: Partial<NewAuditEvent>): Promise<void>;
}
