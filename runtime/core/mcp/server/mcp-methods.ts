/**
 * The MCP methods this endpoint serves, for both eras: `tools/list`,
 * `tools/call`, prompts and resources, `server/discover` (modern) and `ping`
 * (legacy). Parameters get a hand check (no schema library on the hot path);
 * the backend does the rest. What differs by era is said here once: list
 * results carry caching hints on the modern wire, and a request that needs
 * input runs through `input-rounds.ts`.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { GatewayError, publicError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { APPS_DECLARATION, APPS_EXTENSION, clientTakesApps } from '../wire/apps.ts';
import { type JsonRpcId, notificationMessage, resultMessage } from '../wire/json-rpc.ts';
import { type McpEra, MODERN_VERSIONS } from '../wire/protocol-version.ts';
import { metaOf, traceContextOf } from '../wire/request-meta.ts';
import { isTaskMethod, TASKS_EXTENSION } from '../wire/tasks.ts';
import { type Answer, complete, failure } from './answer.ts';
import { withInput } from './input-rounds.ts';
import type { RequestScope } from './request-scope.ts';
import type { Session } from './sessions.ts';
import { answerTaskMethod, revisionHasExtensions, servesTasks } from './task-methods.ts';
import {
  type CompletionRequest,
  type DecidedToolCall,
  isInputRequired,
  type ListCache,
  type ListContext,
  type McpPrincipal,
  type RequestContext,
  type ToolBackend,
  type ToolCall,
} from './tool-backend.ts';

/** What the server declares for every backend: the methods every backend answers. */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: {},
  resources: {},
  logging: {},
} as const;

const DECLARED_VARIANTS = new Map<number, Record<string, object>>();

/**
 * What the server declares to this principal, the one answer of both wires
 * (the 2025 `initialize` result and the 2026 `server/discover` result):
 * every capability whose methods `answerRequest` answers for this backend.
 * Tools, logging, prompts and resources for every backend (lists are
 * answered, empty where it has none); completions where the backend
 * completes; resource subscriptions where the backend takes them and a
 * server behind it delivers their updates to a client of `era`; the tasks
 * extension where the backend answers tasks, to a client of a revision that
 * has extensions (2025-11-25 and 2026-07-28; never the 2025-11-25
 * experimental `capabilities.tasks`, which the extension replaces); the MCP
 * Apps extension where a tool's app is served and the client declared it.
 */
export async function serverCapabilitiesFor<P extends McpPrincipal>(
  backend: ToolBackend<P>,
  principal: P,
  era: McpEra,
  protocolVersion: string,
  clientCapabilities?: unknown,
): Promise<Record<string, object>> {
  const completions = backend.complete !== undefined;
  const served = await backend.serverCapabilities?.(principal, era);
  const subscribe = backend.subscribeResource !== undefined && served?.subscribe === true;
  const extensions = revisionHasExtensions(protocolVersion);
  const tasks = backend.answerTask !== undefined && extensions;
  const apps = extensions && served?.apps === true && clientTakesApps(clientCapabilities);
  const variant = (completions ? 1 : 0) + (subscribe ? 2 : 0) + (tasks ? 4 : 0) + (apps ? 8 : 0);
  let capabilities = DECLARED_VARIANTS.get(variant);
  if (capabilities === undefined) {
    capabilities = Object.freeze({
      ...SERVER_CAPABILITIES,
      resources: subscribe ? { subscribe: true } : {},
      ...(completions ? { completions: {} } : {}),
      ...(tasks || apps
        ? {
            extensions: {
              ...(tasks ? { [TASKS_EXTENSION]: {} } : {}),
              ...(apps ? { [APPS_EXTENSION]: APPS_DECLARATION } : {}),
            },
          }
        : {}),
    });
    DECLARED_VARIANTS.set(variant, capabilities);
  }
  return capabilities;
}

/** How long a client may use a tool list before asking again; changes are announced besides. */
export const TOOL_LIST_TTL_MS = 60_000;

export async function answerRequest<P extends McpPrincipal>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  method: string,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  switch (method) {
    case 'tools/call':
      return callTool(scope, id, params);
    case 'tools/list':
      return list(scope, id, params, 'tools', () =>
        scope.backend.listTools(scope.principal, listContext(scope, params)),
      );
    case 'prompts/list':
      return list(
        scope,
        id,
        params,
        'prompts',
        async (cache) =>
          (await scope.backend.listPrompts?.(scope.principal, listContext(scope, params, cache))) ??
          [],
      );
    case 'prompts/get':
      return getPrompt(scope, id, params);
    case 'resources/list':
      return list(
        scope,
        id,
        params,
        'resources',
        async (cache) =>
          (await scope.backend.listResources?.(
            scope.principal,
            listContext(scope, params, cache),
          )) ?? [],
      );
    case 'resources/templates/list':
      return list(
        scope,
        id,
        params,
        'resourceTemplates',
        async (cache) =>
          (await scope.backend.listResourceTemplates?.(
            scope.principal,
            listContext(scope, params, cache),
          )) ?? [],
      );
    case 'resources/read':
      return readResource(scope, id, params);
    case 'completion/complete':
      if (scope.backend.complete)
        return completeArgument(scope, id, params, scope.backend.complete);
      break;
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      // 2026-07-28 has no per-resource subscriptions (subscriptions/listen instead).
      if (scope.era === 'legacy' && scope.session && scope.backend.subscribeResource)
        return method === 'resources/subscribe'
          ? subscribe(scope, scope.session, id, params)
          : unsubscribe(scope.session, id, params);
      break;
    case 'server/discover':
      if (scope.era === 'modern')
        return { message: resultMessage(id, await discoverResult(scope)) };
      break;
    case 'ping':
      if (scope.era === 'legacy') return { message: resultMessage(id, {}) };
      break;
    case 'initialize':
      if (scope.era === 'legacy') {
        return failure(id, 'invalid_request', 'Invalid Request: Session already initialized');
      }
      break;
    default:
      // `tasks/result` and `tasks/list` are not the extension's: method not found, as for any other.
      if (isTaskMethod(method) && servesTasks(scope))
        return answerTaskMethod(scope, id, method, params);
  }
  return failure(id, 'method_not_found');
}

async function discoverResult<P extends McpPrincipal>(
  scope: RequestScope<P>,
): Promise<Record<string, unknown>> {
  return {
    resultType: 'complete',
    supportedVersions: MODERN_VERSIONS,
    capabilities: await serverCapabilitiesFor(
      scope.backend,
      scope.principal,
      scope.era,
      scope.protocolVersion,
      scope.clientCapabilities,
    ),
    _meta: scope.serverMeta,
    ttlMs: TOOL_LIST_TTL_MS,
    cacheScope: 'public',
  };
}

/** A list in one page; on the modern wire with caching hints, private: every agent sees its own. */
async function list<P extends McpPrincipal>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  member: string,
  read: (cache: ListCache) => Promise<unknown[]>,
): Promise<Answer> {
  // All of a list comes in one page, so no cursor this server issued can exist.
  if (params?.cursor !== undefined) {
    return failure(id, 'invalid_params', 'Invalid params: unknown cursor');
  }
  try {
    // Ours at most; a remote server's list lowers it to its own. Every list is narrowed to the caller's grants.
    const cache: ListCache = { ttlMs: TOOL_LIST_TTL_MS };
    const items = await read(cache);
    if (scope.era === 'legacy') return { message: resultMessage(id, { [member]: items }) };
    return {
      message: resultMessage(id, {
        resultType: 'complete',
        [member]: items,
        ttlMs: cache.ttlMs,
        cacheScope: 'private',
        _meta: scope.serverMeta,
      }),
    };
  } catch (error) {
    return backendFailure(id, error, scope.report);
  }
}

async function callTool<P extends McpPrincipal>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  const name = params?.name;
  const args = params?.arguments;
  if (typeof name !== 'string' || name === '') {
    return failure(id, 'invalid_params', 'Invalid params: name must be a string');
  }
  if (args !== undefined && !isPlainObject(args)) {
    return failure(id, 'invalid_params', 'Invalid params: arguments must be an object');
  }
  return withInput(
    scope,
    id,
    params,
    { method: 'tools/call', name, arguments: args },
    {
      run: (context) =>
        scope.backend.callTool(scope.principal, toolCallOf(context, name, args, scope.decidedCall)),
      // A refused or failed call is a result the agent reads, with its reason code.
      refused: (error) => toolErrorResult(error, scope.challengeOf(error)),
      stepUp: (error) => scope.stepUpOf(error, scope.principal),
    },
  );
}

async function getPrompt<P extends McpPrincipal>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  const name = params?.name;
  const args = params?.arguments;
  if (typeof name !== 'string' || name === '') {
    return failure(id, 'invalid_params', 'Invalid params: name must be a string');
  }
  if (
    args !== undefined &&
    !(isPlainObject(args) && Object.values(args).every((v) => typeof v === 'string'))
  ) {
    return failure(id, 'invalid_params', 'Invalid params: arguments must map names to strings');
  }
  const { getPrompt } = scope.backend;
  if (getPrompt === undefined)
    return failure(id, 'invalid_params', `Invalid params: no prompt ${name}`);
  const prompt = args as Record<string, string> | undefined;
  return withInput(
    scope,
    id,
    params,
    { method: 'prompts/get', name, arguments: prompt },
    {
      run: (context) =>
        getPrompt.call(scope.backend, scope.principal, { ...context, name, arguments: prompt }),
    },
  );
}

async function readResource<P extends McpPrincipal>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  const uri = uriOf(id, params);
  if (typeof uri !== 'string') return uri;
  const notFound = scope.era === 'modern' ? 'resource_not_found' : 'resource_not_found_legacy';
  const { readResource } = scope.backend;
  if (readResource === undefined) return failure(id, notFound, undefined, { uri });
  return withInput(
    scope,
    id,
    params,
    { method: 'resources/read', name: uri, arguments: undefined },
    {
      run: async (context) =>
        readCacheHints(
          scope,
          await readResource.call(scope.backend, scope.principal, { ...context, uri }),
        ),
      translate: (error) => (error.code === 'resource_not_found' ? notFound : error.code),
    },
  );
}

/**
 * A modern `resources/read` result says how long it may be cached and for
 * whom: the backend's hint when it gives one (else 0, not cached), never
 * longer than a list of ours (a revoked grant or a page changed upstream
 * reaches the client within it), and private (what an agent reads was
 * decided for it, whatever scope the server gave).
 */
function readCacheHints<P extends McpPrincipal, R extends object>(
  scope: RequestScope<P>,
  outcome: R,
): R {
  if (scope.era === 'legacy' || isInputRequired(outcome)) return outcome;
  const { ttlMs } = outcome as { ttlMs?: unknown };
  return {
    ...outcome,
    ttlMs:
      typeof ttlMs === 'number' && Number.isInteger(ttlMs) && ttlMs >= 0
        ? Math.min(ttlMs, TOOL_LIST_TTL_MS)
        : 0,
    cacheScope: 'private',
  };
}

function listContext<P extends McpPrincipal>(
  scope: RequestScope<P>,
  params: Record<string, unknown> | undefined,
  cache?: ListCache,
): ListContext {
  return {
    era: scope.era,
    clientCapabilities: scope.clientCapabilities,
    trace: traceContextOf(metaOf(params)),
    span: scope.span,
    ...(cache ? { cache } : {}),
  };
}

async function completeArgument<P extends McpPrincipal>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  suggest: NonNullable<ToolBackend<P>['complete']>,
): Promise<Answer> {
  const ref = params?.ref;
  const argument = params?.argument;
  const context = params?.context;
  const valid =
    isPlainObject(ref) &&
    ((ref.type === 'ref/prompt' && typeof ref.name === 'string') ||
      (ref.type === 'ref/resource' && typeof ref.uri === 'string')) &&
    isPlainObject(argument) &&
    typeof argument.name === 'string' &&
    typeof argument.value === 'string';
  if (!valid) {
    return failure(
      id,
      'invalid_params',
      'Invalid params: ref must name a prompt or a resource template, argument its name and value',
    );
  }
  const others =
    isPlainObject(context) && isPlainObject(context.arguments) ? context.arguments : undefined;
  try {
    const result = await suggest.call(scope.backend, scope.principal, {
      ...listContext(scope, params),
      ref: ref as CompletionRequest['ref'],
      argument: { name: argument.name as string, value: argument.value as string },
      arguments: others as Record<string, string> | undefined,
    });
    return { message: resultMessage(id, complete(scope, result)) };
  } catch (error) {
    return backendFailure(id, error, scope.report);
  }
}

/**
 * A legacy session's `resources/subscribe`: held in the session until it
 * unsubscribes or ends; each update goes out on the session's standalone
 * stream. Subscribing again to a URI already subscribed changes nothing.
 */
async function subscribe<P extends McpPrincipal>(
  scope: RequestScope<P>,
  session: Session,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  const uri = uriOf(id, params);
  if (typeof uri !== 'string') return uri;
  if (session.subscriptions.has(uri)) return { message: resultMessage(id, {}) };
  const { announce } = scope;
  try {
    const subscription = await scope.backend.subscribeResource!(scope.principal, {
      ...listContext(scope, params),
      uri,
      updated: (updated) =>
        announce?.(
          session,
          notificationMessage('notifications/resources/updated', { uri: updated }),
        ),
    });
    // Subscribed twice at once, or the session ended meanwhile: the extra one is undone.
    if (session.subscriptions.has(uri) || session.ended)
      await subscription.end().catch(scope.report);
    else session.subscriptions.set(uri, subscription);
    return { message: resultMessage(id, {}) };
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'resource_not_found')
      return failure(id, 'resource_not_found_legacy', undefined, { uri });
    return backendFailure(id, error, scope.report);
  }
}

/** A legacy session's `resources/unsubscribe`: the subscription it holds is ended (none: nothing to do). */
async function unsubscribe(
  session: Session,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<Answer> {
  const uri = uriOf(id, params);
  if (typeof uri !== 'string') return uri;
  const subscription = session.subscriptions.get(uri);
  session.subscriptions.delete(uri);
  await subscription?.end().catch(() => {});
  return { message: resultMessage(id, {}) };
}

function toolCallOf(
  context: RequestContext,
  name: string,
  args: Record<string, unknown> | undefined,
  decided: DecidedToolCall | undefined,
): ToolCall {
  return {
    decided,
    era: context.era,
    protocolVersion: context.protocolVersion,
    clientCapabilities: context.clientCapabilities,
    cancel: context.cancel,
    progress: context.progress,
    log: context.log,
    trace: context.trace,
    span: context.span,
    input: context.input,
    name,
    arguments: args,
  };
}

/** A refused or failed tool call as the agent sees it: its reason code, never an internal message. */
function toolErrorResult(error: GatewayError, challenge: string | undefined): CallToolResult {
  const shown = publicError(error);
  const result: CallToolResult = {
    isError: true,
    content: [{ type: 'text', text: `${shown.code}: ${shown.message}` }],
    structuredContent: { error: shown },
  };
  // What ChatGPT and other clients read to step up (OpenAI Apps SDK, MCP scope challenges).
  if (challenge !== undefined) result._meta = { [WWW_AUTHENTICATE_META_KEY]: [challenge] };
  return result;
}

/** Where a tool result carries the `WWW-Authenticate` challenge a client can act on. */
export const WWW_AUTHENTICATE_META_KEY = 'mcp/www_authenticate';

/** The request's `uri` (a non-empty string), or the refusal to answer with. */
function uriOf(id: JsonRpcId, params: Record<string, unknown> | undefined): string | Answer {
  const uri = params?.uri;
  return typeof uri === 'string' && uri !== ''
    ? uri
    : failure(id, 'invalid_params', 'Invalid params: uri must be a string');
}

/** A backend failure outside a tool call: a server error carrying the public reason, if any. */
function backendFailure(id: JsonRpcId, error: unknown, report: (error: unknown) => void): Answer {
  if (!(error instanceof GatewayError)) {
    report(error);
    return failure(id, 'internal');
  }
  const shown = publicError(error);
  return failure(id, error.code, `${shown.code}: ${shown.message}`, { error: shown });
}
