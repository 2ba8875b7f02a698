/**
 * The prompts and resources of remote MCP connections, forwarded to the
 * agents that may read them: a connection's server is asked when the agent
 * holds a grant that covers reads on it (prompts and resources are reads),
 * an access token's scopes allowing, the connection active and its server
 * saying it serves them. On `/mcp` each is namespaced by its connection (a
 * prompt `<connection>__<name>`, a resource `<connection>+<uri>`, templates
 * alike); on `/mcp/c/<connection>` they keep the server's names. Every
 * request forwarded, and every one refused, leaves its audit event (action
 * `<method> <name>`).
 */
import type {
  CompleteResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import { GatewayError, reasonOf } from '../errors.ts';
import { auditEvent } from '../governance/audit-event.ts';
import type { Connection, Grant, NewAuditEvent } from '../governance/model.ts';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { isPlainObject } from '../json-value.ts';
import type {
  CompletionRequest,
  ListContext,
  PromptOutcome,
  PromptRequest,
  RequestContext,
  ResourceOutcome,
  ResourceRequest,
  ResourceSubscription,
  ServedFeatures,
  SubscribeRequest,
} from '../mcp/tool-backend.ts';
import { isInputRequired } from '../mcp/tool-backend.ts';
import { scopesAllow } from '../oauth-server/scopes.ts';
import { agentOf, type Caller } from '../principals/principals.ts';
import type { Forwarded, RemoteMcpExecutor } from '../remote/remote-mcp-executor.ts';
import type { RemoteToolSource } from '../remote/remote-tool-source.ts';
import { argumentHash } from './arguments.ts';
import type { AuditLog } from './audit-log.ts';

/** How long a handshake waits for a server to say what it serves before declaring without it. */
const SERVED_WAIT_MS = 2_000;

/** Pages of one upstream list read at most (a server that pages forever is cut there). */
const MAX_PAGES = 20;

export interface ForwardedFeaturesOptions {
  remote: RemoteMcpExecutor;
  audit: AuditLog;
  /** The connection's credential (or the agent's own, for a personal grant), opened from the vault. */
  credentialOf(
    snapshot: GovernanceSnapshot,
    connection: Connection,
    agentId: string | null,
  ): Promise<Record<string, string> | undefined>;
  now: () => Date;
  report: (error: unknown) => void;
}

/** How names appear: namespaced on `/mcp`, as the server gives them on `/mcp/c/<connection>`. */
export type FeatureView = { only: undefined } | { only: string };

/** What a caller may read on one connection. */
interface Readable {
  connection: Connection;
  source: RemoteToolSource;
  grant: Grant;
}

/** A request with no client waiting on it beyond its answer: no progress, no log, no input. */
const LIST_CONTEXT = {
  cancel: { cancelled: false, onCancel: () => () => {} },
  progress: () => {},
  log: () => {},
  input: undefined,
};
const NO_CONTEXT: ListContext = { era: 'legacy', clientCapabilities: {}, trace: undefined };

export class ForwardedFeatures {
  readonly #options: ForwardedFeaturesOptions;

  constructor(options: ForwardedFeaturesOptions) {
    this.#options = options;
  }

  /** Whether any connection the caller may read serves prompts, resources (what to declare). */
  async served(caller: Caller, view: FeatureView): Promise<ServedFeatures> {
    const served: ServedFeatures = { prompts: false, resources: false, completions: false };
    await Promise.all(
      this.#readable(caller, view).map(async (readable) => {
        // A server in error, or one slow to open a session, holds no agent's handshake up.
        if (readable.connection.health === 'error') return;
        let timer: NodeJS.Timeout | undefined;
        const capabilities = await Promise.race([
          this.#capabilitiesOf(caller, readable),
          new Promise<Record<string, unknown>>((resolve) => {
            timer = setTimeout(() => resolve({}), SERVED_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
        if (capabilities.prompts !== undefined) served.prompts = true;
        if (capabilities.resources !== undefined) served.resources = true;
        if (isSubscribable(capabilities)) served.subscribe = true;
        if (capabilities.completions !== undefined) served.completions = true;
      }),
    );
    return served;
  }

  listPrompts(
    caller: Caller,
    view: FeatureView,
    context: ListContext = NO_CONTEXT,
  ): Promise<Prompt[]> {
    return this.#list<Prompt>(caller, view, context, 'prompts', 'prompts/list', (item, c) =>
      view.only === undefined ? { ...item, name: promptName(c, item.name) } : item,
    );
  }

  listResources(
    caller: Caller,
    view: FeatureView,
    context: ListContext = NO_CONTEXT,
  ): Promise<Resource[]> {
    return this.#list<Resource>(caller, view, context, 'resources', 'resources/list', (item, c) =>
      view.only === undefined ? { ...item, uri: resourceUri(c, item.uri) } : item,
    );
  }

  listResourceTemplates(
    caller: Caller,
    view: FeatureView,
    context: ListContext = NO_CONTEXT,
  ): Promise<ResourceTemplate[]> {
    return this.#list<ResourceTemplate>(
      caller,
      view,
      context,
      'resourceTemplates',
      'resources/templates/list',
      (item, c) =>
        view.only === undefined ? { ...item, uriTemplate: resourceUri(c, item.uriTemplate) } : item,
    );
  }

  async getPrompt(
    caller: Caller,
    view: FeatureView,
    request: PromptRequest,
  ): Promise<PromptOutcome> {
    const [connectionName, name] = split(view, request.name, '__');
    const outcome = await this.#forward(
      caller,
      view,
      connectionName,
      request,
      'prompts/get',
      request.name,
      { name, ...(request.arguments ? { arguments: request.arguments } : {}) },
      () => new GatewayError('invalid_params', `Invalid params: no prompt ${request.name}`),
    );
    return outcome as PromptOutcome;
  }

  async readResource(
    caller: Caller,
    view: FeatureView,
    request: ResourceRequest,
  ): Promise<ResourceOutcome> {
    const [connectionName, uri] = split(view, request.uri, '+');
    const outcome = await this.#forward(
      caller,
      view,
      connectionName,
      request,
      'resources/read',
      request.uri,
      { uri },
      () =>
        new GatewayError('resource_not_found', undefined, {
          detail: { uri: request.uri },
        }),
    );
    if (isInputRequired(outcome) || view.only !== undefined || connectionName === undefined)
      return outcome as ResourceOutcome;
    const read = outcome as ReadResourceResult;
    // What was read is named as the agent asked for it.
    return {
      ...read,
      contents: (read.contents ?? []).map((content) => ({
        ...content,
        uri: resourceUri({ name: connectionName }, content.uri),
      })),
    } as ReadResourceResult;
  }

  /** Suggestions for an argument of a connection's prompt or resource template, from its server. */
  async complete(
    caller: Caller,
    view: FeatureView,
    request: CompletionRequest,
  ): Promise<CompleteResult> {
    const { ref } = request;
    const [connectionName, name] =
      ref.type === 'ref/prompt' ? split(view, ref.name, '__') : split(view, ref.uri, '+');
    const upstreamRef = ref.type === 'ref/prompt' ? { ...ref, name } : { ...ref, uri: name };
    const context = { ...LIST_CONTEXT, ...request, protocolVersion: '' };
    const result = await this.#forward(
      caller,
      view,
      connectionName,
      context,
      'completion/complete',
      ref.type === 'ref/prompt' ? ref.name : ref.uri,
      {
        ref: upstreamRef,
        argument: request.argument,
        ...(request.arguments ? { context: { arguments: request.arguments } } : {}),
      },
      () => new GatewayError('invalid_params', 'Invalid params: no such prompt or template'),
    );
    return result as CompleteResult;
  }

  /**
   * A resource subscription, for a resource of a connection the caller may
   * read (refused and audited as a read is otherwise) whose server takes
   * subscriptions (`invalid_params` when it does not): made upstream in the
   * caller's session, its updates given to `request.updated` under the
   * agent's name for the URI. Subscribing and letting go each leave an
   * audit event.
   */
  async subscribe(
    caller: Caller,
    view: FeatureView,
    request: SubscribeRequest,
  ): Promise<ResourceSubscription> {
    const { uri } = request;
    const [connectionName, upstreamUri] = split(view, uri, '+');
    const context = { ...LIST_CONTEXT, ...request, protocolVersion: '' };
    const started = performance.now();
    let connectionId: string | null = null;
    const record = (method: string, change: Partial<NewAuditEvent>) =>
      this.#options.audit.append(
        {
          ...this.#event(caller, `${method} ${uri}`, context),
          connectionId,
          latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
          ...change,
        },
        { alone: true },
      );
    const audit = (method: string, change: Partial<NewAuditEvent>) =>
      record(method, { decision: 'allowed', outcome: 'ok', ...change }).catch(this.#options.report);
    const granted = await this.#readableOrRefuse(
      caller,
      view,
      connectionName,
      'resources/subscribe',
      () => new GatewayError('resource_not_found', undefined, { detail: { uri } }),
      (refused) => record('resources/subscribe', refused),
    );
    connectionId = granted.connection.id;
    if (!isSubscribable(await this.#capabilitiesOf(caller, granted))) {
      // No update would ever come: said, rather than accepted for nothing.
      const refusal = new GatewayError(
        'invalid_params',
        `Invalid params: the server of ${granted.connection.name} does not take resource subscriptions`,
      );
      await record('resources/subscribe', { reason: refusal.code });
      throw refusal;
    }
    const { connection, source } = granted;
    const named = (serverUri: string) =>
      view.only === undefined ? resourceUri(connection, serverUri) : serverUri;
    let letGo: () => Promise<void>;
    try {
      letGo = await this.#options.remote.subscribeResource(
        {
          target: { connection, source },
          credential: await this.#credential(caller, connection, source, granted.grant),
          credentialOwner: ownerOf(caller, granted.grant),
        },
        upstreamUri,
        (serverUri) => request.updated(named(serverUri)),
      );
    } catch (error) {
      const failed = notFoundOf(error, 'resources/subscribe', uri) ?? error;
      await audit('resources/subscribe', { outcome: 'error', reason: reasonOf(failed) });
      throw failed;
    }
    const upstreamHost = new URL(source.endpoint.url).host;
    await audit('resources/subscribe', { upstreamHost });
    let ended = false;
    return {
      end: async () => {
        if (ended) return;
        ended = true;
        await letGo();
        await audit('resources/unsubscribe', { upstreamHost });
      },
    };
  }

  /**
   * The connection a named request is for, when the caller may read it;
   * otherwise the refusal (not granted, or `unknown` for a name that is no
   * connection), audited.
   */
  async #readableOrRefuse(
    caller: Caller,
    view: FeatureView,
    connectionName: string | undefined,
    action: string,
    unknown: () => GatewayError,
    refused: (change: Partial<NewAuditEvent>) => Promise<unknown>,
  ): Promise<Readable> {
    const name = view.only ?? connectionName;
    const readable = name === undefined ? undefined : this.#readable(caller, { only: name }).at(0);
    if (readable !== undefined) return readable;
    const exists = name !== undefined && caller.snapshot.connectionByName(caller.workspaceId, name);
    const refusal = exists
      ? new GatewayError(
          'not_granted',
          `this agent may not read ${action === 'prompts/get' ? 'prompts' : 'resources'} of ${name}: a grant on it that covers reads does (portcullis grant <agent> ${name} --scope reads)`,
        )
      : unknown();
    await refused({ reason: refusal.code, connectionId: exists ? exists.id : null });
    throw refusal;
  }

  /** Forwards one named request to the connection it names, when the caller may read it. */
  async #forward(
    caller: Caller,
    view: FeatureView,
    connectionName: string | undefined,
    context: RequestContext,
    method: string,
    shownName: string,
    params: Record<string, unknown>,
    unknown: () => GatewayError,
  ): Promise<Record<string, unknown>> {
    const started = performance.now();
    const event = this.#event(caller, `${method} ${shownName}`, context);
    if (method === 'prompts/get') event.argumentHash = argumentHash(params.arguments);
    const finish = (change: Partial<NewAuditEvent>) =>
      this.#options.audit.append(
        {
          ...event,
          ...change,
          latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
        },
        { alone: true },
      );
    const readable = await this.#readableOrRefuse(
      caller,
      view,
      connectionName,
      method,
      unknown,
      finish,
    );
    event.connectionId = readable.connection.id;
    let forwarded: Forwarded;
    try {
      forwarded = await this.#send(caller, readable, context, method, params);
    } catch (error) {
      const failed = notFoundOf(error, method, shownName) ?? error;
      const code = reasonOf(failed);
      await finish({ decision: 'allowed', outcome: 'error', reason: code });
      throw failed;
    }
    await finish({
      decision: 'allowed',
      outcome: 'ok',
      upstreamHost: forwarded.host,
      upstreamStatus: forwarded.upstreamStatus,
      requestBytes: forwarded.requestBytes,
      replyBytes: forwarded.replyBytes,
    }).catch(this.#options.report);
    return resultOf(forwarded.outcome as Record<string, unknown>, context);
  }

  /** One upstream list of every connection the caller may read that serves it, all its pages. */
  async #list<T extends object>(
    caller: Caller,
    view: FeatureView,
    listContext: ListContext,
    member: string,
    method: string,
    rename: (item: T, connection: Connection) => T,
  ): Promise<T[]> {
    const feature = method.startsWith('prompts') ? 'prompts' : 'resources';
    const context: RequestContext = { ...LIST_CONTEXT, ...listContext, protocolVersion: '' };
    const lists = await Promise.all(
      this.#readable(caller, view).map(async (readable) => {
        const capabilities = await this.#capabilitiesOf(caller, readable);
        if (capabilities[feature] === undefined) return [];
        const started = performance.now();
        const items: T[] = [];
        let outcome: Partial<NewAuditEvent> = { decision: 'allowed', outcome: 'ok' };
        try {
          let cursor: string | undefined;
          for (let page = 0; page < MAX_PAGES; page++) {
            const forwarded = await this.#send(caller, readable, context, method, {
              ...(cursor === undefined ? {} : { cursor }),
            });
            const result = forwarded.outcome as Record<string, unknown>;
            const listed = Array.isArray(result[member]) ? (result[member] as unknown[]) : [];
            for (const item of listed)
              if (isPlainObject(item)) items.push(rename(item as T, readable.connection));
            cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
            if (cursor === undefined) break;
          }
        } catch (error) {
          // One server that cannot list leaves the others' lists whole.
          outcome = { decision: 'allowed', outcome: 'error', reason: reasonOf(error) };
        }
        const event = this.#event(caller, method, context);
        await this.#options.audit
          .append(
            {
              ...event,
              ...outcome,
              connectionId: readable.connection.id,
              latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
            },
            { alone: true },
          )
          .catch(this.#options.report);
        return items;
      }),
    );
    return lists.flat();
  }

  async #send(
    caller: Caller,
    { connection, source, grant }: Readable,
    context: RequestContext,
    method: string,
    params: Record<string, unknown>,
  ): Promise<Forwarded> {
    return this.#options.remote.forward({
      target: { connection, source },
      credential: await this.#credential(caller, connection, source, grant),
      credentialOwner: ownerOf(caller, grant),
      cancel: context.cancel,
      clientCapabilities: context.clientCapabilities,
      progress: context.progress,
      log: context.log,
      input: context.input,
      method,
      params,
    });
  }

  async #capabilitiesOf(caller: Caller, readable: Readable): Promise<Record<string, unknown>> {
    try {
      return await this.#options.remote.capabilitiesOf({
        target: readable,
        credential: await this.#credential(
          caller,
          readable.connection,
          readable.source,
          readable.grant,
        ),
        credentialOwner: ownerOf(caller, readable.grant),
      });
    } catch {
      // A server that cannot be reached now serves nothing now.
      return {};
    }
  }

  #credential(
    caller: Caller,
    connection: Connection,
    source: RemoteToolSource,
    grant: Grant,
  ): Promise<Record<string, string> | undefined> {
    if (source.endpoint.authKind === 'none') return Promise.resolve(undefined);
    return this.#options.credentialOf(caller.snapshot, connection, ownerOf(caller, grant));
  }

  /** The remote connections whose prompts and resources the caller may read now. */
  #readable(caller: Caller, view: FeatureView): Readable[] {
    const { snapshot } = caller;
    const agent = agentOf(caller);
    if (!agent) return [];
    const readable: Readable[] = [];
    for (const grant of snapshot.grantsOf(agent.id)) {
      if (grant.scope !== 'all' && grant.scope !== 'reads') continue;
      const found = snapshot.connectionById(grant.connectionId);
      if (found?.source?.kind !== 'remote_mcp') continue;
      const { connection } = found;
      const source = found.source as RemoteToolSource;
      if (connection.workspaceId !== agent.workspaceId || connection.status !== 'active') continue;
      if (source.endpoint.draft !== null) continue;
      if (view.only !== undefined && connection.name !== view.only) continue;
      if (caller.scopes !== undefined && !scopesAllow(caller.scopes, 'read', connection.name))
        continue;
      readable.push({ connection, source, grant });
    }
    return readable;
  }

  #event(caller: Caller, action: string, context: Pick<RequestContext, 'trace'>): NewAuditEvent {
    return auditEvent({
      at: this.#options.now().toISOString(),
      workspaceId: caller.workspaceId,
      actorKind: 'agent',
      actorId: caller.agentId,
      action: action.slice(0, 200),
      decision: 'denied',
      traceparent: context.trace?.traceparent ?? null,
    });
  }
}

/** A result as the agent's era takes it (the server's era marks stripped; the endpoint adds its own). */
function resultOf(
  outcome: Record<string, unknown>,
  context: RequestContext,
): Record<string, unknown> {
  if (isInputRequired(outcome)) return outcome;
  const { resultType: _type, _meta: _server, ...result } = outcome;
  if (context.era === 'legacy') {
    const { ttlMs: _ttl, cacheScope: _scope, ...legacy } = result;
    return legacy;
  }
  return result;
}

/** The server's "no such prompt or resource" as the gateway's own, so the agent's era says it its way. */
function notFoundOf(error: unknown, method: string, shownName: string): GatewayError | undefined {
  if (!(error instanceof GatewayError) || error.code !== 'mcp_remote_error') return undefined;
  const rpcCode = error.detail?.rpcCode;
  if (rpcCode !== -32602 && rpcCode !== -32002) return undefined;
  if (method === 'resources/read' || method.startsWith('resources/'))
    return new GatewayError('resource_not_found', undefined, { detail: { uri: shownName } });
  return new GatewayError('invalid_params', `Invalid params: ${error.message.slice(0, 300)}`);
}

/** On `/mcp`, `<connection><separator><name>`; on `/mcp/c/<connection>`, the name as it is. */
function split(view: FeatureView, name: string, separator: string): [string | undefined, string] {
  if (view.only !== undefined) return [view.only, name];
  const at = name.indexOf(separator);
  if (at <= 0) return [undefined, name];
  return [name.slice(0, at), name.slice(at + separator.length)];
}

function promptName(connection: Pick<Connection, 'name'>, name: string): string {
  return `${connection.name}__${name}`;
}

/** A connection's resource URI (or template) on `/mcp`: its name, `+`, the server's URI. */
function resourceUri(connection: Pick<Connection, 'name'>, uri: string): string {
  return `${connection.name}+${uri}`;
}

/** Whether a server's capabilities say it takes resource subscriptions. */
function isSubscribable(capabilities: Record<string, unknown>): boolean {
  return isPlainObject(capabilities.resources) && capabilities.resources.subscribe === true;
}

/** Whose credential the caller's requests carry: its own under a personal grant, else the connection's (null). */
function ownerOf(caller: Caller, grant: Grant): string | null {
  return grant.credentialMode === 'personal' ? caller.agentId : null;
}
