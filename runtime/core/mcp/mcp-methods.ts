/**
 * The MCP methods this endpoint serves, for both eras: `tools/list`,
 * `tools/call`, prompts and resources, `server/discover` (modern) and `ping`
 * (legacy). Parameters get a hand check (no schema library on the hot path);
 * the backend does the rest. What differs by era is said here once: list
 * results carry caching hints on the modern wire, and a request that needs
 * input runs through `input-rounds.ts`.
 */
import type {
  CallToolResult,
  ClientCapabilities,
  InputRequest,
  LoggingLevel,
} from '@modelcontextprotocol/server';
import type { Cancellation } from '../cancellation.ts';
import { GatewayError, publicError } from '../errors.ts';
import { isPlainObject } from '../json-value.ts';
import { type Answer, failure } from './answer.ts';
import { withInput } from './input-rounds.ts';
import { type JsonRpcId, resultMessage } from './json-rpc.ts';
import type { PendingReply } from './pending-reply.ts';
import { type McpEra, MODERN_VERSIONS } from './protocol-version.ts';
import { metaOf, traceContextOf } from './request-meta.ts';
import {
  isInputRequired,
  type ListContext,
  type McpPrincipal,
  type RequestContext,
  type ToolBackend,
  type ToolCall,
} from './tool-backend.ts';
import type { WireContext } from './wire-context.ts';

/** What the server says it can do, on both wires. */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: {},
  resources: {},
  logging: {},
} as const;

const TOOLS_AND_LOGGING = { tools: SERVER_CAPABILITIES.tools, logging: {} } as const;
const SERVED_VARIANTS = [
  TOOLS_AND_LOGGING,
  { ...TOOLS_AND_LOGGING, prompts: {} },
  { ...TOOLS_AND_LOGGING, resources: {} },
  SERVER_CAPABILITIES,
] as const;

/**
 * What the server declares to this principal: prompts and resources only
 * when the backend has some to serve it (a backend that does not say, both).
 */
export async function serverCapabilitiesFor<P extends McpPrincipal>(
  backend: ToolBackend<P>,
  principal: P,
): Promise<(typeof SERVED_VARIANTS)[number]> {
  if (backend.serverCapabilities === undefined) return SERVER_CAPABILITIES;
  const served = await backend.serverCapabilities(principal);
  return SERVED_VARIANTS[(served.prompts ? 1 : 0) + (served.resources ? 2 : 0)]!;
}

/** How long a client may use a tool list before asking again; changes are announced besides. */
export const TOOL_LIST_TTL_MS = 60_000;

/** Everything a method needs to answer one request: the wire's context, and the request's own. */
export interface RequestScope<P extends McpPrincipal> extends WireContext<P> {
  principal: P;
  era: McpEra;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  /** The lowest log level the client wants messages for; undefined: none. */
  logLevel: LoggingLevel | undefined;
  /** The reply being worked out: notifications about the request go on it. */
  reply: PendingReply;
  /** A legacy session's running calls by id, so `notifications/cancelled` can reach them. */
  running: Map<JsonRpcId, Cancellation> | undefined;
  /** From the HTTP request: cancels a call when the client goes away. */
  cancelOnDisconnect: ((call: Cancellation) => void) | undefined;
  /**
   * Legacy sessions: asks the client for input with server-to-client requests
   * on the reply stream, and resolves with its answers by key.
   */
  askClient:
    | ((
        requests: Record<string, InputRequest>,
        cancel: Cancellation,
      ) => Promise<Record<string, unknown>>)
    | undefined;
}

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
      return list(scope, id, params, 'tools', () => scope.backend.listTools(scope.principal));
    case 'prompts/list':
      return list(
        scope,
        id,
        params,
        'prompts',
        async () =>
          (await scope.backend.listPrompts?.(scope.principal, listContext(scope, params))) ?? [],
      );
    case 'prompts/get':
      return getPrompt(scope, id, params);
    case 'resources/list':
      return list(
        scope,
        id,
        params,
        'resources',
        async () =>
          (await scope.backend.listResources?.(scope.principal, listContext(scope, params))) ?? [],
      );
    case 'resources/templates/list':
      return list(
        scope,
        id,
        params,
        'resourceTemplates',
        async () =>
          (await scope.backend.listResourceTemplates?.(
            scope.principal,
            listContext(scope, params),
          )) ?? [],
      );
    case 'resources/read':
      return readResource(scope, id, params);
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
  }
  return failure(id, 'method_not_found');
}

async function discoverResult<P extends McpPrincipal>(
  scope: RequestScope<P>,
): Promise<Record<string, unknown>> {
  return {
    resultType: 'complete',
    supportedVersions: MODERN_VERSIONS,
    capabilities: await serverCapabilitiesFor(scope.backend, scope.principal),
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
  read: () => Promise<unknown[]>,
): Promise<Answer> {
  // All of a list comes in one page, so no cursor this server issued can exist.
  if (params?.cursor !== undefined) {
    return failure(id, 'invalid_params', 'Invalid params: unknown cursor');
  }
  try {
    const items = await read();
    if (scope.era === 'legacy') return { message: resultMessage(id, { [member]: items }) };
    return {
      message: resultMessage(id, {
        resultType: 'complete',
        [member]: items,
        ttlMs: TOOL_LIST_TTL_MS,
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
      run: (context) => scope.backend.callTool(scope.principal, toolCallOf(context, name, args)),
      // A refused or failed call is a result the agent reads, with its reason code.
      refused: (error) => toolErrorResult(error, scope.challengeOf(error)),
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
  const uri = params?.uri;
  if (typeof uri !== 'string' || uri === '') {
    return failure(id, 'invalid_params', 'Invalid params: uri must be a string');
  }
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
 * whom: the backend's hint when it gives one (else 0, not cached), private
 * (what an agent reads is its own).
 */
function readCacheHints<P extends McpPrincipal, R extends object>(
  scope: RequestScope<P>,
  outcome: R,
): R {
  if (scope.era === 'legacy' || isInputRequired(outcome)) return outcome;
  const { ttlMs } = outcome as { ttlMs?: unknown };
  return {
    ...outcome,
    ttlMs: typeof ttlMs === 'number' && Number.isInteger(ttlMs) && ttlMs >= 0 ? ttlMs : 0,
    cacheScope: 'private',
  };
}

function listContext<P extends McpPrincipal>(
  scope: RequestScope<P>,
  params: Record<string, unknown> | undefined,
): ListContext {
  return {
    era: scope.era,
    clientCapabilities: scope.clientCapabilities,
    trace: traceContextOf(metaOf(params)),
  };
}

function toolCallOf(
  context: RequestContext,
  name: string,
  args: Record<string, unknown> | undefined,
): ToolCall {
  return {
    era: context.era,
    protocolVersion: context.protocolVersion,
    clientCapabilities: context.clientCapabilities,
    cancel: context.cancel,
    progress: context.progress,
    log: context.log,
    trace: context.trace,
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

/** A backend failure outside a tool call: a server error carrying the public reason, if any. */
function backendFailure(id: JsonRpcId, error: unknown, report: (error: unknown) => void): Answer {
  if (!(error instanceof GatewayError)) {
    report(error);
    return failure(id, 'internal');
  }
  const shown = publicError(error);
  return failure(id, error.code, `${shown.code}: ${shown.message}`, { error: shown });
}
