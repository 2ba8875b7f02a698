/**
 * The prompts, resources and templates of remote MCP connections, forwarded
 * to the agents that may read them, each request through the governed
 * pipeline: one decision (decision.ts: a grant that covers reads, the
 * connection active, the item reviewed, the token's scopes), one audit
 * event (audited-call.ts). Only what an operator reviewed is served: each is
 * pinned as a tool is (pinned-features.ts), so a changed or new one is held
 * from lists and refused by name until reviewed. Names follow the view
 * (feature-names.ts): namespaced on `/mcp`, the server's own on
 * `/mcp/c/<connection>`. One small adapter per kind of request.
 */
import type {
  CompleteResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import type { Caller } from '../identity/principals/principals.ts';
import type {
  CompletionRequest,
  ListContext,
  PromptOutcome,
  PromptRequest,
  ResourceOutcome,
  ResourceRequest,
  ResourceSubscription,
  ServedFeatures,
  SubscribeRequest,
} from '../mcp/server/tool-backend.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import { complete } from './completion.ts';
import { FeatureLists, type FeatureListsOptions } from './feature-lists.ts';
import { type FeatureView, NO_CONTEXT } from './feature-names.ts';
import type { Forwarding } from './named-request.ts';
import { getPrompt } from './prompt-get.ts';
import { readResource } from './resource-read.ts';
import { subscribe } from './resource-subscription.ts';

export class ForwardedFeatures {
  readonly #forwarding: Forwarding;
  readonly #lists: FeatureLists;

  constructor(options: FeatureListsOptions) {
    this.#lists = new FeatureLists(options);
    this.#forwarding = {
      audit: options.audit,
      remote: options.remote,
      limits: options.limits,
      unpinned: (connectionId) => this.#lists.rediscover(connectionId),
    };
  }

  served(caller: Caller, view: FeatureView, era?: McpEra): ServedFeatures {
    return this.#lists.served(caller, view, era);
  }

  listPrompts(caller: Caller, view: FeatureView, context = NO_CONTEXT): Promise<Prompt[]> {
    return this.#lists.list(caller, view, context, 'prompt') as Promise<Prompt[]>;
  }

  listResources(caller: Caller, view: FeatureView, context = NO_CONTEXT): Promise<Resource[]> {
    return this.#lists.list(caller, view, context, 'resource') as Promise<Resource[]>;
  }

  listResourceTemplates(
    caller: Caller,
    view: FeatureView,
    context: ListContext = NO_CONTEXT,
  ): Promise<ResourceTemplate[]> {
    return this.#lists.list(caller, view, context, 'template') as Promise<ResourceTemplate[]>;
  }

  getPrompt(caller: Caller, view: FeatureView, request: PromptRequest): Promise<PromptOutcome> {
    return getPrompt(this.#forwarding, caller, view, request);
  }

  readResource(
    caller: Caller,
    view: FeatureView,
    request: ResourceRequest,
  ): Promise<ResourceOutcome> {
    return readResource(this.#forwarding, caller, view, request);
  }

  complete(caller: Caller, view: FeatureView, request: CompletionRequest): Promise<CompleteResult> {
    return complete(this.#forwarding, caller, view, request);
  }

  subscribe(
    caller: Caller,
    view: FeatureView,
    request: SubscribeRequest,
  ): Promise<ResourceSubscription> {
    return subscribe(this.#forwarding, caller, view, request);
  }
}
