/**
 * The prompts and resources of remote MCP connections, forwarded to the
 * agents that may read them: a connection's server is asked when the agent
 * holds a grant that covers reads on it (prompts and resources are reads),
 * an access token's scopes allowing, the connection active and its server
 * saying it serves them. Only what an operator reviewed is served: each is
 * pinned as a tool is (pinned-features.ts), so a changed or new one is held
 * from lists and refused by name until reviewed. On `/mcp` each is
 * namespaced by its connection (a prompt `<connection>__<name>`, a resource
 * `<connection>+<uri>`, templates alike); on `/mcp/c/<connection>` they keep
 * the server's names. Every request forwarded, and every one refused, leaves
 * its audit event (action `<method> <name>`), and so does every list that
 * held something back.
 */
import type {
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import { NEVER_CANCELLED } from '../base/cancellation.ts';
import { GatewayError, reasonOf } from '../base/errors.ts';
import { auditEvent } from '../governance/audit-event.ts';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { agentOf, type Caller } from '../identity/principals/principals.ts';
import { scopesAllow } from '../identity/principals/scopes.ts';
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
} from '../mcp/server/tool-backend.ts';
import { isInputRequired } from '../mcp/server/tool-backend.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';
import type { Connection, Grant, NewAuditEvent } from '../model/governance.ts';
import type { RemoteFeatureKind, RemoteFeatures } from '../model/remote.ts';
import type { Redactor } from '../outbound/redaction.ts';
import { FEATURE_LISTS } from '../sources/remote-mcp/discover-features.ts';
import { namespacedId } from '../sources/remote-mcp/remote-feature-contract.ts';
import { featuresFor, featuresOf, isSubscribable } from '../sources/remote-mcp/remote-features.ts';
import type { Forwarded, RemoteMcpExecutor } from '../sources/remote-mcp/remote-mcp-executor.ts';
import type { RemoteToolSource } from '../sources/remote-mcp/remote-tool-source.ts';
import { argumentHash } from './arguments.ts';
import type { AuditLog } from './audit-log.ts';
import { type NamedFeature, pinnedOrThrow, servedList } from './pinned-features.ts';

/** Connections whose features were learned here (not recorded) kept at most; past it, learned again. */
const MAX_LEARNED = 1_000;

/** Pages of one upstream list read at most (a server that pages forever is cut there). */
const MAX_PAGES = 20;

/** How often a list that shows what the pins do not know asks for the connection's discovery. */
const REDISCOVER_EVERY_MS = 10_000;

export interface ForwardedFeaturesOptions {
  remote: RemoteMcpExecutor;
  audit: AuditLog;
  /** The connection's credential (or the agent's own, for a personal grant), opened from the vault. */
  credentialOf(
    snapshot: GovernanceSnapshot,
    connection: Connection,
    agentId: string | null,
  ): Promise<Record<string, string> | undefined>;
  /** Every credential held for the workspace, as the redactor its replies go through. */
  secretsOf(snapshot: GovernanceSnapshot, workspaceId: string): Promise<Redactor>;
  now: () => Date;
  report: (error: unknown) => void;
  /**
   * A list (with the shared credential) showed a prompt, resource or template
   * its pins do not know: the connection is to be discovered again, so the
   * change waits in review (at most every 10 s per connection).
   */
  unpinned?: (connectionId: string) => void;
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
  cancel: NEVER_CANCELLED,
  progress: () => {},
  log: () => {},
  input: undefined,
};
const NO_CONTEXT: ListContext = { era: 'legacy', clientCapabilities: {}, trace: undefined };

export class ForwardedFeatures {
  readonly #options: ForwardedFeaturesOptions;
  /** Features of connections recorded without them, as their servers said here (by connection id). */
  readonly #learned = new Map<string, RemoteFeatures>();
  readonly #learning = new Set<string>();
  /** When each connection last asked for its discovery again. */
  readonly #rediscovered = new Map<string, number>();

  constructor(options: ForwardedFeaturesOptions) {
    this.#options = options;
  }

  /**
   * Whether any connection the caller may read serves prompts, resources or
   * completions (what a handshake declares), from what each server said when
   * it was connected or last discovered: no handshake waits on a server. A
   * connection recorded before servers' features were is asked in the
   * background, and declared from the next handshake on.
   */
  served(caller: Caller, view: FeatureView, era?: McpEra): ServedFeatures {
    const served: ServedFeatures = { prompts: false, resources: false, completions: false };
    for (const readable of this.#readable(caller, view)) {
      const { connection, source } = readable;
      const recorded = source.endpoint.features ?? this.#learned.get(connection.id);
      if (recorded === undefined) {
        this.#learn(caller, readable);
        continue;
      }
      const features = featuresFor(recorded, era);
      if (features.prompts) served.prompts = true;
      if (features.resources) served.resources = true;
      if (features.completions) served.completions = true;
      if (features.subscribe) served.subscribe = true;
    }
    return served;
  }

  /** Asks a server with no recorded features what it serves, once at a time, for the handshakes after. */
  #learn(caller: Caller, readable: Readable): void {
    const id = readable.connection.id;
    if (this.#learning.has(id) || readable.connection.health === 'error') return;
    this.#learning.add(id);
    void this.#capabilitiesOf(caller, readable).then((capabilities) => {
      this.#learning.delete(id);
      if (capabilities === undefined) return;
      if (this.#learned.size >= MAX_LEARNED) this.#learned.clear();
      this.#learned.set(id, featuresOf(capabilities));
    });
  }

  listPrompts(
    caller: Caller,
    view: FeatureView,
    context: ListContext = NO_CONTEXT,
  ): Promise<Prompt[]> {
    return this.#list(caller, view, context, 'prompt') as Promise<Prompt[]>;
  }

  listResources(
    caller: Caller,
    view: FeatureView,
    context: ListContext = NO_CONTEXT,
  ): Promise<Resource[]> {
    return this.#list(caller, view, context, 'resource') as Promise<Resource[]>;
  }

  listResourceTemplates(
    caller: Caller,
    view: FeatureView,
    context: ListContext = NO_CONTEXT,
  ): Promise<ResourceTemplate[]> {
    return this.#list(caller, view, context, 'template') as Promise<ResourceTemplate[]>;
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
      { kind: 'prompt', id: name, shown: request.name, field: 'name' },
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
      { kind: 'resource', id: uri, shown: request.uri, field: 'uri' },
    );
    if (isInputRequired(outcome) || view.only !== undefined || connectionName === undefined)
      return outcome as ResourceOutcome;
    const read = outcome as ReadResourceResult;
    // What was read is named as the agent asked for it.
    return {
      ...read,
      contents: (read.contents ?? []).map((content) => ({
        ...content,
        uri: namespacedId({ name: connectionName }, 'resource', content.uri),
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
      ref.type === 'ref/prompt'
        ? { kind: 'prompt', id: name, shown: ref.name, field: 'ref' }
        : { kind: 'template', id: name, shown: ref.uri, field: 'ref' },
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
    try {
      pinnedOrThrow(caller.snapshot, granted.connection, granted.source, {
        kind: 'resource',
        id: upstreamUri,
        shown: uri,
        field: 'uri',
      });
    } catch (refusal) {
      await record('resources/subscribe', { reason: reasonOf(refusal) });
      throw refusal;
    }
    if (!isSubscribable((await this.#capabilitiesOf(caller, granted, context.era)) ?? {})) {
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
      view.only === undefined ? namespacedId(connection, 'resource', serverUri) : serverUri;
    let letGo: () => Promise<void>;
    try {
      letGo = await this.#options.remote.subscribeResource(
        {
          target: { connection, source },
          credential: await this.#credential(caller, connection, source, granted.grant),
          credentialOwner: ownerOf(caller, granted.grant),
          era: context.era,
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
          `this agent may not read ${action === 'prompts/get' ? 'prompts' : 'resources'} of ${name}: a grant on it that covers reads does (portcullis grant ${agentOf(caller)?.name ?? '<agent>'} ${name} --scope reads)`,
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
    named: NamedFeature,
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
    let pinned: ReturnType<typeof pinnedOrThrow>;
    try {
      pinned = pinnedOrThrow(caller.snapshot, readable.connection, readable.source, named);
    } catch (refusal) {
      await finish({ reason: reasonOf(refusal) });
      throw refusal;
    }
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
    const result = resultOf(forwarded.outcome as Record<string, unknown>, context);
    if (method !== 'prompts/get' || isInputRequired(result)) return result;
    // The prompt's description as reviewed, not as the server says it now (its messages are data).
    const { description: _said, ...rest } = result as GetPromptResult;
    return pinned?.kind === 'prompt' && pinned.contract.description !== undefined
      ? { ...rest, description: pinned.contract.description }
      : rest;
  }

  /**
   * One upstream list of every connection the caller may read that serves
   * it, all its pages, less what is held back (audited, one event a list).
   */
  async #list(
    caller: Caller,
    view: FeatureView,
    listContext: ListContext,
    kind: RemoteFeatureKind,
  ): Promise<object[]> {
    const list = FEATURE_LISTS.find((candidate) => candidate.kind === kind)!;
    const context: RequestContext = { ...LIST_CONTEXT, ...listContext, protocolVersion: '' };
    const lists = await Promise.all(
      this.#readable(caller, view).map(async (readable) => {
        const capabilities = await this.#capabilitiesOf(caller, readable, listContext.era);
        if (capabilities?.[list.capability] === undefined) return [];
        const started = performance.now();
        const listed: unknown[] = [];
        let outcome: Partial<NewAuditEvent> = { decision: 'allowed', outcome: 'ok' };
        try {
          let cursor: string | undefined;
          for (let page = 0; page < MAX_PAGES; page++) {
            const forwarded = await this.#send(caller, readable, context, list.method, {
              ...(cursor === undefined ? {} : { cursor }),
            });
            const result = forwarded.outcome as Record<string, unknown>;
            const entries = result[list.member];
            if (Array.isArray(entries)) listed.push(...entries);
            cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
            if (cursor === undefined) break;
          }
        } catch (error) {
          // One server that cannot list leaves the others' lists whole.
          outcome = { decision: 'allowed', outcome: 'error', reason: reasonOf(error) };
        }
        const served = servedList(
          caller.snapshot,
          readable.connection,
          readable.source,
          kind,
          listed,
          view.only === undefined,
        );
        const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
        const event = {
          ...this.#event(caller, list.method, context),
          connectionId: readable.connection.id,
          latencyMs,
        };
        const append = (change: Partial<NewAuditEvent>) =>
          this.#options.audit
            .append({ ...event, ...change }, { alone: true })
            .catch(this.#options.report);
        await append(outcome);
        if (served.held.length > 0)
          await append({
            decision: 'denied',
            reason: served.held[0]!.reason,
            subject: `held ${served.held.length}: ${served.held
              .map((item) => `${item.name} (${item.reason})`)
              .join(', ')}`.slice(0, 500),
          });
        if (served.unpinned && ownerOf(caller, readable.grant) === null)
          this.#rediscover(readable.connection.id);
        return served.items;
      }),
    );
    return lists.flat();
  }

  /** Asks for the connection's discovery again, at most every REDISCOVER_EVERY_MS. */
  #rediscover(connectionId: string): void {
    const now = this.#options.now().getTime();
    const last = this.#rediscovered.get(connectionId);
    if (last !== undefined && now - last < REDISCOVER_EVERY_MS) return;
    this.#rediscovered.set(connectionId, now);
    this.#options.unpinned?.(connectionId);
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
      secrets: await this.#options.secretsOf(caller.snapshot, caller.workspaceId),
      cancel: context.cancel,
      clientCapabilities: context.clientCapabilities,
      era: context.era,
      progress: context.progress,
      log: context.log,
      input: context.input,
      method,
      params,
    });
  }

  /** What the server says it serves in the caller's session; undefined when it cannot be reached. */
  async #capabilitiesOf(
    caller: Caller,
    readable: Readable,
    era?: McpEra,
  ): Promise<Record<string, unknown> | undefined> {
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
        era,
      });
    } catch {
      return undefined;
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

/** Whose credential the caller's requests carry: its own under a personal grant, else the connection's (null). */
function ownerOf(caller: Caller, grant: Grant): string | null {
  return grant.credentialMode === 'personal' ? caller.agentId : null;
}
