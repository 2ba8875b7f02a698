/**
 * What the MCP endpoint needs from the gateway: who is calling, which tools
 * that caller sees (and when that changes), and running one call. The
 * endpoint owns the wire (HTTP, JSON-RPC, both eras, sessions, streams); the
 * backend owns every decision about principals and tools. Nothing here knows
 * REST, OAuth or which revision the client speaks beyond what a call needs.
 */
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  GetPromptResult,
  InputRequest,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/server';
import type { CancelSignal } from '../../base/cancellation.ts';
import type { ReasonCode } from '../../base/errors.ts';
import type { JsonValue } from '../../base/json-value.ts';
import type { SpanParent } from '../../base/tracing.ts';
import type { StepUpForm } from '../../model/oauth.ts';
import type { McpEra } from '../wire/protocol-version.ts';
import type { TraceContext } from '../wire/request-meta.ts';
import type { TaskMethod, TaskStarted, TaskState } from '../wire/tasks.ts';

/** The caller behind an MCP request: an agent in a workspace. */
export interface McpPrincipal {
  readonly agentId: string;
  readonly workspaceId: string;
  /**
   * How this caller's client steps up from `insufficient_scope` (its OAuth
   * registration's form); undefined: the endpoint's `stepUp`.
   */
  readonly stepUp?: StepUpForm | undefined;
}

/** What every request a backend runs carries: who may answer what, and how to talk back. */
export interface RequestContext {
  era: McpEra;
  protocolVersion: string;
  /** What the client declared it can do (on this request, or when its session opened). */
  clientCapabilities: ClientCapabilities;
  /** Fires when the client cancels the call, goes away, or ends its session. */
  cancel: CancelSignal;
  /** Reports progress, when the client asked for it; otherwise does nothing. */
  progress(progress: number, total?: number, message?: string): void;
  /** A log message about this call, sent only if the client asked for messages at this level. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * The client's answers to the input this call asked for, and the state the
   * backend asked to get back with them (integrity-checked by the endpoint).
   */
  input: { responses: Record<string, unknown>; state: JsonValue | undefined } | undefined;
  /** W3C trace context the client sent, for the audit event and the log. */
  trace: TraceContext | undefined;
  /** The gateway's span for the request (tracing on): the parent of the call's own spans. */
  span?: SpanParent | undefined;
}

/** What a list request tells the backend: the era, what the client can do, its trace. */
export type ListContext = Pick<RequestContext, 'era' | 'clientCapabilities' | 'trace' | 'span'> & {
  /** How long the list may be kept (2026-07-28 `ttlMs`): a backend lowers it to what its sources allow. */
  cache?: ListCache;
};

/** A list's cache hint as the backend builds it: never raised, only lowered. */
export interface ListCache {
  ttlMs: number;
}

/** One tool call, as the backend sees it. */
export interface ToolCall extends RequestContext {
  name: string;
  arguments: Record<string, unknown> | undefined;
  /** What `describeTool` decided of this call, when the endpoint asked it first. */
  decided?: DecidedToolCall;
  /**
   * The connection whose endpoint (`/mcp/c/<connection>`) the call came on,
   * as the backend serving it says (a task the call starts is that
   * endpoint's only); undefined: `/mcp`.
   */
  endpoint?: string;
}

/**
 * A tool call decided before it runs (the modern wire checks the call's
 * `Mcp-Param` headers against the tool first): the tool as the principal
 * sees it listed, undefined when it is unknown to it. Given back to
 * `callTool` with the call, so that a call is decided once.
 */
export interface DecidedToolCall {
  readonly name: string;
  readonly tool: Tool | undefined;
}

/** What is known of a tool call the endpoint refused before running it. */
export type RefusedToolCall = Pick<ToolCall, 'name' | 'arguments' | 'trace' | 'span'>;

export interface PromptRequest extends RequestContext {
  name: string;
  arguments: Record<string, string> | undefined;
}

export interface ResourceRequest extends RequestContext {
  uri: string;
}

/**
 * The call needs input from the client's person or model before it can go on
 * (2026-07-28 multi round-trip requests). On the modern wire it becomes an
 * `input_required` result; on a legacy session the endpoint asks the client
 * with server-to-client requests and calls again with the answers.
 */
export interface InputRequired {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  /** Given back, unchanged and integrity-checked, with the answers. */
  state?: JsonValue;
}

/**
 * What a tool call comes to: its result, input it needs first, or (to a
 * client that declared the tasks extension on the request) a task that
 * stands for it, polled with `tasks/get`.
 */
export type ToolOutcome = CallToolResult | InputRequired | TaskStarted;
export type PromptOutcome = GetPromptResult | InputRequired;
export type ResourceOutcome = ReadResourceResult | InputRequired;

export function isInputRequired(outcome: object): outcome is InputRequired {
  return (outcome as { resultType?: unknown }).resultType === 'input_required';
}

export interface ToolBackend<P extends McpPrincipal = McpPrincipal> {
  /**
   * The principal the `Authorization` header stands for; undefined for no or a
   * bad credential (401). Called on EVERY request, so a revoked agent is
   * refused on its next request. What it returns is given back to the other
   * methods for the rest of that request.
   */
  authenticate(authorization: string | undefined): P | undefined | Promise<P | undefined>;
  /**
   * The tools this principal may see, in a stable order; `context` says what
   * the client declared (a tool's MCP App only for one that takes apps).
   */
  listTools(principal: P, context?: ListContext): Promise<Tool[]>;
  /** Decides a call of one tool by name: the tool this principal sees (what the endpoint checks a call's headers against). */
  describeTool?(
    principal: P,
    name: string,
    span?: SpanParent,
  ): DecidedToolCall | Promise<DecidedToolCall>;
  /**
   * Runs one tool call. A thrown `GatewayError` becomes a tool result with
   * `isError: true` and its public reason code; anything else becomes a
   * JSON-RPC internal error that says nothing more.
   */
  callTool(principal: P, call: ToolCall): Promise<ToolOutcome>;
  /**
   * Records a tool call the endpoint refused before it reached `callTool` (a
   * retry whose `requestState` or answers did not check out), so that it too
   * leaves its audit event. The endpoint answers the agent itself.
   */
  recordRefusedCall?(principal: P, call: RefusedToolCall, reason: ReasonCode): Promise<void>;
  /**
   * Calls `listener` when the tools this principal sees may have changed;
   * returns what stops it. A backend without it never announces changes.
   */
  watchTools?(principal: P, listener: () => void): () => void;

  /**
   * Whether this principal is served prompts and resources (declared in the
   * server's capabilities only then), to a client of `era`. A backend
   * without it declares both.
   */
  serverCapabilities?(principal: P, era?: McpEra): Promise<ServedFeatures>;

  // Prompts and resources: a backend without them serves empty lists and knows no names.
  listPrompts?(principal: P, context?: ListContext): Promise<Prompt[]>;
  /** An unknown prompt is a `GatewayError` (`invalid_params`). */
  getPrompt?(principal: P, request: PromptRequest): Promise<PromptOutcome>;
  listResources?(principal: P, context?: ListContext): Promise<Resource[]>;
  listResourceTemplates?(principal: P, context?: ListContext): Promise<ResourceTemplate[]>;
  /** An unknown resource is a `GatewayError` (`resource_not_found`). */
  readResource?(principal: P, request: ResourceRequest): Promise<ResourceOutcome>;
  /** Suggestions for a prompt's or a resource template's argument; without it, none. */
  complete?(principal: P, request: CompletionRequest): Promise<CompleteResult>;
  /**
   * Subscribes the client to updates of one resource (a legacy session's
   * `resources/subscribe`, a `subscriptions/listen` stream's
   * `resourceSubscriptions`): `request.updated` is called with each updated
   * URI, named as the client names it, until the subscription is ended. A
   * resource the client may not read is a `GatewayError`.
   */
  subscribeResource?(principal: P, request: SubscribeRequest): Promise<ResourceSubscription>;

  /**
   * Answers a request of the tasks extension: `tasks/get` with the task's
   * state, `tasks/update` and `tasks/cancel` with nothing (acknowledged). A
   * backend with it is declared to serve the extension; one whose tool calls
   * answer with tasks must have it. A task this principal may not see is a
   * `GatewayError` (`task_not_found`), the same as one that never existed.
   */
  answerTask?(principal: P, request: TaskRequest): Promise<TaskState | undefined>;
}

/** One `tasks/get`, `tasks/update` or `tasks/cancel` of a client that declared the extension. */
export interface TaskRequest extends ListContext {
  method: TaskMethod;
  protocolVersion: string;
  /** The task's id as the client has it (from a `CreateTaskResult`). */
  taskId: string;
  /** `tasks/update`: the client's answers to the task's input requests, by key. */
  inputResponses?: Record<string, Record<string, unknown>>;
  /** Fires when the client goes away. */
  cancel: CancelSignal;
}

export interface SubscribeRequest extends ListContext {
  uri: string;
  updated(uri: string): void;
}

/** A resource subscription held for a client; `end` undoes it (when the client unsubscribes or goes away). */
export interface ResourceSubscription {
  end(): Promise<void>;
}

/** What a principal is served beyond tools (declared in the server's capabilities only then). */
export interface ServedFeatures {
  prompts: boolean;
  resources: boolean;
  /** Resource subscriptions work: updates of a subscribed resource reach the client. */
  subscribe?: boolean;
  completions?: boolean;
  /** A tool's MCP App is served (`io.modelcontextprotocol/ui`, to a client that declares it). */
  apps?: boolean;
}

/** `completion/complete`: which prompt or template, which argument and what is typed so far. */
export interface CompletionRequest extends ListContext {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  /** The values of the other arguments, when the client sends them. */
  arguments: Record<string, string> | undefined;
}
