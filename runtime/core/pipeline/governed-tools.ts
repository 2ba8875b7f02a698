/**
 * The agents' side of the gateway, as the MCP endpoint's tool backend: who
 * is calling (the principals), what they see, and every call through one
 * governed pipeline:
 *
 *   decision (decision.ts: agent, grant, connection, policy, scopes) →
 *   the rate limits (call-limits.ts) →
 *   the kind's adapter (tool-call.ts; prompt-get, resource-read,
 *   completion, resource-subscription via forwarded-features.ts) →
 *   one audit event (audited-call.ts)
 *
 * A refusal is a `GatewayError` with its reason code, which the MCP endpoint
 * turns into an `isError` result (a tool call) or a JSON-RPC error.
 */
import type {
  CompleteResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/server';
import { TOOL_NAME_MAX } from '../../../generated/catalog-rules.ts';
import { NEVER_CANCELLED } from '../base/cancellation.ts';
import { GatewayError, type ReasonCode } from '../base/errors.ts';
import { isPlainObject } from '../base/json-value.ts';
import { leafSpan, NO_SPAN, type SpanParent } from '../base/tracing.ts';
import { CALL_ACTION, RESERVED_TOOL_NAMES } from '../governance/reserved-names.ts';
import { agentOf, type Caller, type Principals } from '../identity/principals/principals.ts';
import type {
  CompletionRequest,
  DecidedToolCall,
  ListContext,
  PromptOutcome,
  PromptRequest,
  RefusedToolCall,
  RequestContext,
  ResourceOutcome,
  ResourceRequest,
  ResourceSubscription,
  ServedFeatures,
  SubscribeRequest,
  TaskRequest,
  ToolBackend,
  ToolCall,
  ToolOutcome,
} from '../mcp/server/tool-backend.ts';
import { clientTakesApps } from '../mcp/wire/apps.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import type { TaskState } from '../mcp/wire/tasks.ts';
import type { Approval } from '../model/approvals.ts';
import type { AuditVia } from '../model/governance.ts';
import type { AuditWriter } from '../ports/audit-writer.ts';
import type { Store } from '../ports/store.ts';
import type { CallMetrics } from '../ports/telemetry.ts';
import type { Executors } from '../sources/executor.ts';
import type { RemoteMcpExecutor } from '../sources/remote-mcp/remote-mcp-executor.ts';
import { RecordedTasks, type TaskReactions } from '../tasks/recorded-tasks.ts';
import { RemoteTasks } from '../tasks/remote-tasks.ts';
import type { TaskIds } from '../tasks/task-ids.ts';
import type { CredentialVault } from '../vault/credential-vault.ts';
import { CallAudit, type CallOpening } from './audited-call.ts';
import { CallCredentials } from './call-credentials.ts';
import type { CallLimits } from './call-limits.ts';
import { decideToolCall, type ToolDecision } from './decision.ts';
import { DiscoveryCalls } from './discovery-calls.ts';
import { ALL } from './feature-names.ts';
import { ForwardedFeatures } from './forwarded-features.ts';
import { type HeldCallContext, HeldCalls, type HeldCallsOptions } from './held-calls.ts';
import { RemoteRequests } from './remote-requests.ts';
import { TaskRequests } from './task-requests.ts';
import { ToolCalls } from './tool-call.ts';
import { ToolViews } from './tool-views.ts';
import type { ToolWatch } from './tool-watch.ts';
import { WorkspaceSecrets } from './workspace-secrets.ts';

export interface GovernedToolsOptions {
  /** Told about failures no caller should see (the operator's log), with the call they belong to. */
  report?: (error: unknown, context?: { tool: string; traceparent?: string }) => void;
  store: Store;
  audit: AuditWriter;
  principals: Principals;
  vault: CredentialVault;
  executors: Executors;
  /** Forwards the prompts and resources of remote connections (none served without it). */
  remote?: RemoteMcpExecutor;
  watch: ToolWatch;
  /** The rate limits every allowed call is charged to (none without). */
  limits?: CallLimits;
  now?: () => Date;
  /** A connection's prompts or resources showed what its pins do not know: discover it again. */
  unpinned?: (connectionId: string) => void;
  /** `auto` tools mode: an agent may call more tools than this, it is served the discovery tools (40 unless given). */
  discoveryThreshold?: number;
  /** Told about each call as its event is finished (none by default). */
  metrics?: CallMetrics;
  /** Seals the ids of the tasks the extension hands out (`core/tasks/task-ids.ts`). */
  taskIds: TaskIds;
  /** What the in-process producers of recorded tasks hear of them, by purpose. */
  taskReactions?: Readonly<Record<string, TaskReactions>>;
  /** Calls to `ask` actions: how long they wait (docs/approvals.md); the defaults without. */
  approvals?: Pick<HeldCallsOptions, 'ttlMs' | 'waitMs' | 'pollMs' | 'held'>;
}

/** The `auto` tools mode's threshold unless configured. */
export const DISCOVERY_THRESHOLD_DEFAULT = 40;

export class GovernedTools implements ToolBackend<Caller> {
  readonly #options: GovernedToolsOptions;
  readonly #audit: CallAudit;
  readonly #calls: ToolCalls;
  readonly #views = new ToolViews();
  readonly #discovery: DiscoveryCalls;
  readonly #taskRequests: TaskRequests;
  readonly #held: HeldCalls;
  /** Approved calls running for their tasks (`runApproved`): the gateway closing waits for them. */
  readonly #running = new Set<Promise<void>>();

  /**
   * Tasks of calls Portcullis works on itself (a call held for approval): the
   * producer interface of `core/tasks/recorded-tasks.ts`, on the store.
   */
  readonly tasks: RecordedTasks;

  /** Prompts and resources of remote connections; `/mcp/c/<connection>` reads them too. */
  readonly features: ForwardedFeatures | undefined;

  constructor(options: GovernedToolsOptions) {
    this.#options = options;
    const now = options.now ?? (() => new Date());
    const report = options.report ?? (() => {});
    const credentials = new CallCredentials(options.store, options.vault);
    const secrets = new WorkspaceSecrets(options.store, options.vault);
    this.#audit = new CallAudit(options.audit, now, (error) => report(error), options.metrics);
    this.tasks = new RecordedTasks({
      rows: options.store.tasks,
      ids: options.taskIds,
      now,
      ...(options.taskReactions ? { reactions: options.taskReactions } : {}),
    });
    const held = new HeldCalls({
      approvals: options.store.approvals,
      tasks: this.tasks,
      now,
      run: (id) => this.runApproved(id),
      ...options.approvals,
    });
    this.#calls = new ToolCalls({
      store: options.store,
      executors: options.executors,
      credentials,
      secrets,
      now,
      limits: options.limits,
      report,
      remoteTasks: new RemoteTasks({ ids: options.taskIds }),
      held,
    });
    this.#discovery = new DiscoveryCalls({
      views: this.#views,
      audit: this.#audit,
      threshold: options.discoveryThreshold ?? DISCOVERY_THRESHOLD_DEFAULT,
      direct: (caller, call) => this.#direct(caller, call, 'discovery'),
    });
    this.#taskRequests = new TaskRequests({
      ids: options.taskIds,
      recorded: this.tasks,
      executors: options.executors,
      credentials,
      secrets,
      audit: this.#audit,
      // A held call's task, polled: its approval decided, it fails or runs (once) here.
      settle: (caller, request, ref) =>
        held.settleTask(ref, (approval) => this.#approved(caller, request, approval)),
    });
    this.#held = held;
    this.features =
      options.remote &&
      new ForwardedFeatures({
        audit: this.#audit,
        remote: new RemoteRequests(options.remote, credentials, secrets),
        limits: options.limits,
        now,
        ...(options.unpinned ? { unpinned: options.unpinned } : {}),
      });
  }

  /** Resolves once no call is running and every call's audit event is written (the gateway closing). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    return this.#audit.settled();
  }

  /**
   * An approval was approved (on this replica or another): a held call that
   * answered a task runs now if this replica claims it, its result the
   * task's (docs/approvals.md). Never throws; what fails goes to `report`.
   */
  runApproved(id: string): Promise<void> {
    const running = this.#held
      .runApproved(id, async (approval, context) => {
        const caller = await this.#options.principals.restore({ ...approval, ...context });
        if (caller === undefined) return undefined;
        const request = { ...context, cancel: NEVER_CANCELLED, trace: undefined };
        return (claimed) => this.#approved(caller, request, claimed, context.auditVia);
      })
      .catch((error: unknown) => this.#options.report?.(error))
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
    return running;
  }

  /** An approved call, claimed: made for `caller` under the approval's id. */
  async #approved(caller: Caller, request: ApprovedContext, approval: Approval, via?: AuditVia) {
    // On the endpoint it was made on: a task it starts upstream is its client's there.
    const { endpoint } = JSON.parse(approval.callContext ?? '{}') as Partial<HeldCallContext>;
    const outcome = await this.#direct(
      caller,
      {
        ...approvedCall(request, approval.action, approval.arguments),
        ...(endpoint ? { endpoint } : {}),
      },
      via,
      approval.id,
    );
    if ('content' in outcome) return outcome;
    // A task the upstream started (the client takes tasks): the held task follows it.
    if (outcome.resultType === 'task') return outcome;
    throw new GatewayError('internal');
  }

  /** The caller of `/mcp`, or with `connection` of that connection's endpoint. */
  authenticate(
    authorization: string | undefined,
    connection?: string,
  ): Promise<Caller | undefined> {
    return this.#options.principals.authenticate(authorization, connection);
  }

  async listTools(caller: Caller, context?: ListContext): Promise<Tool[]> {
    const agent = agentOf(caller);
    if (!agent) throw new GatewayError('unauthenticated');
    // In discovery mode, the three discovery tools instead of the catalog.
    if (this.#discovery.serves(caller.snapshot, agent)) return this.#discovery.tools;
    return this.#views.listOf(caller.snapshot, agent, clientTakesApps(context?.clientCapabilities));
  }

  /**
   * Every tool the caller may call, whatever its mode (`/mcp/c/<connection>`
   * serves its own directly); tools keep their apps only for a client that
   * declared the MCP Apps extension (on this request, or when its session opened).
   */
  async listActionTools(caller: Caller, context?: ListContext): Promise<Tool[]> {
    const agent = agentOf(caller);
    if (!agent) throw new GatewayError('unauthenticated');
    return this.#views.listOf(caller.snapshot, agent, clientTakesApps(context?.clientCapabilities));
  }

  /** The call of a tool, decided: the tool as listed to the caller (one it may not call is unknown here, as in its list). */
  describeTool(caller: Caller, name: string, span: SpanParent = NO_SPAN): DecidedToolCall {
    const discoveryTool = RESERVED_TOOL_NAMES.has(name)
      ? this.#discovery.toolFor(caller, name)
      : undefined;
    // The call a discovery tool makes is decided when it runs, under the action's own name.
    if (discoveryTool) return { name, tool: discoveryTool };
    return this.decideTool(caller, name, span);
  }

  /** The direct call of a tool, decided (a discovery tool's name is no tool's). */
  decideTool(caller: Caller, name: string, parent: SpanParent = NO_SPAN): DecidedCall {
    const decision = leafSpan('portcullis.governance', parent, (span) => {
      const decided = decideToolCall(caller, name);
      span.setAttribute('portcullis.decision', decided.allowed ? 'allowed' : 'denied');
      return decided;
    });
    const tool = decision.listed && this.#views.toolOf(decision.listed);
    return new DecidedCall(caller, name, decision, name, tool);
  }

  callTool(caller: Caller, call: ToolCall): Promise<ToolOutcome> {
    if (RESERVED_TOOL_NAMES.has(call.name) && this.#discovers(caller))
      return this.#discovery.call(caller, call);
    return this.#direct(caller, call);
  }

  /** Whether the caller is served the discovery tools now. */
  #discovers(caller: Caller): boolean {
    const agent = agentOf(caller);
    return agent !== undefined && this.#discovery.serves(caller.snapshot, agent);
  }

  /** A call of an action under its own name: directly, or what a `call_action` names (`via`). */
  #direct(caller: Caller, call: ToolCall, via?: AuditVia, approved?: string): Promise<ToolOutcome> {
    return this.#audit.run(openingOf(caller, call, via), async (audited) => {
      audited.hashArguments(call.arguments);
      const { decided } = call;
      const decision =
        decided instanceof DecidedCall && decided.caller === caller && decided.asked === call.name
          ? decided.decision
          : audited.decide(() => decideToolCall(caller, call.name));
      return this.#calls.run(caller, call, decision, audited, approved);
    });
  }

  /** A call the endpoint refused before it reached `callTool`: audited all the same. */
  recordRefusedCall(caller: Caller, refused: RefusedToolCall, reason: ReasonCode): Promise<void> {
    // A `call_action` is audited as the call of the action it names, as when it runs.
    const action =
      refused.name === CALL_ACTION && this.#discovers(caller)
        ? this.#discovery.actionOf(refused.arguments)
        : undefined;
    const call =
      action === undefined
        ? refused
        : { ...refused, name: action, arguments: innerArguments(refused.arguments) };
    const via = action === undefined ? undefined : 'discovery';
    return this.#audit.run(openingOf(caller, call, via), async (audited) => {
      audited.hashArguments(call.arguments);
      const target = caller.snapshot.resolveTool(caller.workspaceId, call.name);
      await audited.finish({ reason, connectionId: target?.connection.id ?? null });
    });
  }

  watchTools(caller: Caller, listener: () => void): () => void {
    return this.#options.watch.watch(caller, listener);
  }

  /** A `tasks/*` request on `/mcp`. */
  answerTask(caller: Caller, request: TaskRequest): Promise<TaskState | undefined> {
    return this.#taskRequests.answer(caller, request);
  }

  /** A `tasks/*` request on `/mcp/c/<endpoint>`: only that endpoint's tasks are its. */
  answerTaskAt(
    caller: Caller,
    request: TaskRequest,
    endpoint: string,
  ): Promise<TaskState | undefined> {
    return this.#taskRequests.answer(caller, request, endpoint);
  }

  // Prompts, resources and completions, namespaced by connection.

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
}

/**
 * A tool call decided ahead of running it: the decision `callTool` takes
 * back for this caller and this name, and the tool as the caller sees it
 * listed (`name` as the endpoint calls it: `/mcp/c/<connection>` renames it).
 */
export class DecidedCall implements DecidedToolCall {
  readonly caller: Caller;
  /** The tool's name on `/mcp`, which the decision is on. */
  readonly asked: string;
  readonly decision: ToolDecision;
  readonly name: string;
  readonly tool: Tool | undefined;

  constructor(
    caller: Caller,
    asked: string,
    decision: ToolDecision,
    name: string,
    tool: Tool | undefined,
  ) {
    this.caller = caller;
    this.asked = asked;
    this.decision = decision;
    this.name = name;
    this.tool = tool;
  }

  /** The same decision, for an endpoint that names the tool `name`. */
  renamed(name: string): DecidedCall {
    const tool = this.tool && { ...this.tool, name };
    return new DecidedCall(this.caller, this.asked, this.decision, name, tool);
  }
}

const NOTHING_SERVED: ServedFeatures = { prompts: false, resources: false };

/** What a tool call is audited as: its name (no tool is named longer; an unknown name is not stored whole). */
function openingOf(caller: Caller, call: RefusedToolCall, via?: AuditVia): CallOpening {
  return {
    caller,
    action: call.name.slice(0, TOOL_NAME_MAX),
    trace: call.trace,
    span: call.span,
    method: 'tools/call',
    ...(via ? { via } : {}),
  };
}

/**
 * An approved call, made when it is approved or its task is polled: the
 * held call's context (or the poll's), no progress. The call's result is
 * the held task's; a task it starts upstream, the held task follows.
 */
type ApprovedContext = Pick<
  RequestContext,
  'era' | 'protocolVersion' | 'clientCapabilities' | 'cancel' | 'trace' | 'span'
>;

function approvedCall(request: ApprovedContext, name: string, args: string): ToolCall {
  return {
    name,
    arguments: JSON.parse(args) as Record<string, unknown>,
    era: request.era,
    protocolVersion: request.protocolVersion,
    // The client's own, the tasks extension too: a task the upstream starts, the held task follows.
    clientCapabilities: request.clientCapabilities,
    cancel: request.cancel,
    progress: () => {},
    log: () => {},
    input: undefined,
    trace: request.trace,
    span: request.span,
  };
}

/** The arguments a `call_action` passes on (none when they are not an object). */
function innerArguments(args: Record<string, unknown> | undefined) {
  const inner = args?.arguments;
  return isPlainObject(inner) ? inner : undefined;
}
