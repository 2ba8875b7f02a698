/**
 * One connection's tools under the names its own server gives them, for
 * `/mcp/c/<connection>`: a client configured for that server sees what it
 * expects. Every call still goes through the gateway's governance under the
 * aggregated name (the audit log names it so); this view only renames.
 */
import type {
  CompleteResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/server';
import type { ReasonCode } from '../base/errors.ts';
import type { SpanParent } from '../base/tracing.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import type { ToolTarget } from '../governance/tool-source.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type {
  CompletionRequest,
  DecidedToolCall,
  ListContext,
  PromptOutcome,
  PromptRequest,
  RefusedToolCall,
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
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import type { TaskState } from '../mcp/wire/tasks.ts';
import type { Connection } from '../model/governance.ts';
import type { ToolApp } from '../model/remote.ts';
import type { RemoteAction } from '../sources/remote-mcp/remote-tool-source.ts';
import type { FeatureView } from './feature-names.ts';
import type { GovernedTools } from './governed-tools.ts';
import { appMetaOf } from './served-apps.ts';

function appOf(target: ToolTarget): ToolApp | undefined {
  return target.source.kind === 'remote_mcp'
    ? (target.action as RemoteAction).contract.ui
    : undefined;
}

const NOTHING_SERVED: ServedFeatures = { prompts: false, resources: false };

export class ConnectionTools implements ToolBackend<Caller> {
  readonly #tools: GovernedTools;
  readonly #connection: string;

  readonly #view: FeatureView;

  constructor(tools: GovernedTools, connection: string) {
    this.#tools = tools;
    this.#connection = connection;
    this.#view = { only: connection };
  }

  authenticate(authorization: string | undefined): Promise<Caller | undefined> {
    return this.#tools.authenticate(authorization, this.#connection);
  }

  async listTools(caller: Caller, context?: ListContext): Promise<Tool[]> {
    const listed = await this.#tools.listActionTools(caller, context);
    const mine: Tool[] = [];
    for (const tool of listed) {
      const target = caller.snapshot.resolveTool(caller.workspaceId, tool.name);
      if (target?.connection.name !== this.#connection) continue;
      const ui = tool._meta?.ui === undefined ? undefined : appOf(target);
      mine.push({
        ...tool,
        name: target.action.name,
        // Its app under the server's own uri, as the server gave it.
        ...(ui ? { _meta: appMetaOf(ui, ui.resourceUri) } : {}),
      });
    }
    return mine;
  }

  describeTool(caller: Caller, name: string, span?: SpanParent): DecidedToolCall {
    const connection = this.#of(caller);
    // An unknown connection's tool is an unknown tool.
    const asked = connection ? toolNameFor(connection, name) : `${this.#connection}__${name}`;
    return this.#tools.decideTool(caller, asked, span).renamed(name);
  }

  callTool(caller: Caller, call: ToolCall): Promise<ToolOutcome> {
    const connection = this.#of(caller);
    // An unknown connection's tool is an unknown tool, refused (and audited) as such.
    const name = connection
      ? toolNameFor(connection, call.name)
      : `${this.#connection}__${call.name}`;
    return this.#tools.callTool(caller, { ...call, name, endpoint: this.#connection });
  }

  recordRefusedCall(caller: Caller, call: RefusedToolCall, reason: ReasonCode): Promise<void> {
    const connection = this.#of(caller);
    return this.#tools.recordRefusedCall(
      caller,
      {
        ...call,
        name: connection ? toolNameFor(connection, call.name) : call.name,
      },
      reason,
    );
  }

  watchTools(caller: Caller, listener: () => void): () => void {
    return this.#tools.watchTools(caller, listener);
  }

  /** Only the tasks started on this endpoint are found here. */
  answerTask(caller: Caller, request: TaskRequest): Promise<TaskState | undefined> {
    return this.#tools.answerTaskAt(caller, request, this.#connection);
  }

  // The connection's own prompts and resources, under the server's names.
  async serverCapabilities(caller: Caller, era?: McpEra): Promise<ServedFeatures> {
    return this.#tools.features?.served(caller, this.#view, era) ?? NOTHING_SERVED;
  }

  async listPrompts(caller: Caller, context?: ListContext): Promise<Prompt[]> {
    return (await this.#tools.features?.listPrompts(caller, this.#view, context)) ?? [];
  }

  getPrompt(caller: Caller, request: PromptRequest): Promise<PromptOutcome> {
    const { features } = this.#tools;
    if (!features) return this.#tools.getPrompt(caller, request);
    return features.getPrompt(caller, this.#view, request);
  }

  async listResources(caller: Caller, context?: ListContext): Promise<Resource[]> {
    return (await this.#tools.features?.listResources(caller, this.#view, context)) ?? [];
  }

  async listResourceTemplates(caller: Caller, context?: ListContext): Promise<ResourceTemplate[]> {
    return (await this.#tools.features?.listResourceTemplates(caller, this.#view, context)) ?? [];
  }

  complete(caller: Caller, request: CompletionRequest): Promise<CompleteResult> {
    const { features } = this.#tools;
    if (!features) return this.#tools.complete(caller, request);
    return features.complete(caller, this.#view, request);
  }

  subscribeResource(caller: Caller, request: SubscribeRequest): Promise<ResourceSubscription> {
    const { features } = this.#tools;
    if (!features) return this.#tools.subscribeResource(caller, request);
    return features.subscribe(caller, this.#view, request);
  }

  readResource(caller: Caller, request: ResourceRequest): Promise<ResourceOutcome> {
    const { features } = this.#tools;
    if (!features) return this.#tools.readResource(caller, request);
    return features.readResource(caller, this.#view, request);
  }

  #of(caller: Caller): Connection | undefined {
    return caller.snapshot.connectionByName(caller.workspaceId, this.#connection);
  }
}
