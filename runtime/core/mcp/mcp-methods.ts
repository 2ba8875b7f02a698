/**
 * The MCP methods this endpoint serves, for both eras: `tools/list`,
 * `tools/call` (with multi round-trip input), `server/discover` (modern) and
 * `ping` (legacy). Parameters get a hand check (no schema library on the hot
 * path); the backend does the rest. What differs by era is said here once:
 * modern results carry `resultType` and the server's identity in `_meta`,
 * list results carry caching hints, and input a call needs becomes an
 * `input_required` result (modern) or requests to the client (legacy).
 */
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequest,
  type LoggingLevel,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import { Cancellation } from '../cancellation.ts';
import { GatewayError, isOperatorsToSee, publicError, type ReasonCode } from '../errors.ts';
import { isPlainObject, type JsonValue } from '../json-value.ts';
import { rpcErrorOf } from './http-exchange.ts';
import { type JsonRpcId, type OutgoingMessage, resultMessage } from './json-rpc.ts';
import type { PendingReply } from './pending-reply.ts';
import { type McpEra, MODERN_VERSIONS } from './protocol-version.ts';
import {
  logLevelWanted,
  metaOf,
  type ProgressToken,
  progressTokenOf,
  traceContextOf,
} from './request-meta.ts';
import type { RequestStateBinding } from './request-state.ts';
import {
  type InputRequired,
  isInputRequired,
  type McpPrincipal,
  type RequestContext,
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

/** How long a client may use a tool list before asking again; changes are announced besides. */
export const TOOL_LIST_TTL_MS = 60_000;

/** Rounds of input one call may ask for on a legacy session before it is refused. */
const MAX_INPUT_ROUNDS = 8;

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

/** A reply message, and the reason code when it is an error (the modern wire's HTTP status). */
export interface Answer {
  message: OutgoingMessage;
  reason?: ReasonCode;
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
        async () => (await scope.backend.listPrompts?.(scope.principal)) ?? [],
      );
    case 'prompts/get':
      return getPrompt(scope, id, params);
    case 'resources/list':
      return list(
        scope,
        id,
        params,
        'resources',
        async () => (await scope.backend.listResources?.(scope.principal)) ?? [],
      );
    case 'resources/templates/list':
      return list(
        scope,
        id,
        params,
        'resourceTemplates',
        async () => (await scope.backend.listResourceTemplates?.(scope.principal)) ?? [],
      );
    case 'resources/read':
      return readResource(scope, id, params);
    case 'server/discover':
      if (scope.era === 'modern') return { message: resultMessage(id, discoverResult(scope)) };
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

function discoverResult(scope: RequestScope<McpPrincipal>): Record<string, unknown> {
  return {
    resultType: 'complete',
    supportedVersions: MODERN_VERSIONS,
    capabilities: SERVER_CAPABILITIES,
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
      refused: (error) => toolErrorResult(error),
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
      run: (context) => readResource.call(scope.backend, scope.principal, { ...context, uri }),
      translate: (error) => (error.code === 'resource_not_found' ? notFound : error.code),
    },
  );
}

interface Invocation<R> {
  run(context: RequestContext): Promise<R | InputRequired>;
  /** How a `GatewayError` becomes a result, when it does (tool calls); otherwise it is a JSON-RPC error. */
  refused?: (error: GatewayError) => object;
  /** The reason a `GatewayError` is answered with (the era's own resource-not-found). */
  translate?: (error: GatewayError) => ReasonCode;
}

/**
 * Runs a request that may need input from the client (2026-07-28 MRTR):
 * modern, it answers `input_required` and a retry brings the answers and the
 * sealed state; legacy, the client is asked on the reply stream and the
 * request runs again with its answers, until it completes.
 */
async function withInput<P extends McpPrincipal, R extends object>(
  scope: RequestScope<P>,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  binding: Omit<RequestStateBinding, 'principal'>,
  invocation: Invocation<R>,
): Promise<Answer> {
  const meta = metaOf(params);
  const cancellation = new Cancellation();
  let input: RequestContext['input'];
  // Only a modern retry brings answers and state (a legacy client answers on the reply stream).
  if (
    scope.era === 'modern' &&
    (params?.inputResponses !== undefined || params?.requestState !== undefined)
  ) {
    try {
      input = await modernInput(scope, binding, params);
    } catch (error) {
      if (error instanceof GatewayError) return failure(id, error.code, error.message);
      throw error;
    }
  }
  // Literals, not spreads: this runs on every call.
  let context: RequestContext = {
    era: scope.era,
    protocolVersion: scope.protocolVersion,
    clientCapabilities: scope.clientCapabilities,
    cancel: cancellation,
    progress: progressReporter(scope.reply, progressTokenOf(meta)),
    log: logger(scope),
    trace: traceContextOf(meta),
    input,
  };

  scope.cancelOnDisconnect?.(cancellation);
  scope.running?.set(id, cancellation);
  try {
    let outcome = await invocation.run(context);
    for (let round = 1; isInputRequired(outcome); round++) {
      if (scope.era === 'modern') {
        return { message: resultMessage(id, await inputRequiredResult(scope, binding, outcome)) };
      }
      // Legacy: ask the client on the reply stream, then run again with its answers.
      if (scope.askClient === undefined || round > MAX_INPUT_ROUNDS) {
        throw new GatewayError(
          'invalid_request',
          'this request needs input the client cannot give',
        );
      }
      requireCapabilities(scope.clientCapabilities, outcome.inputRequests);
      const responses = await scope.askClient(outcome.inputRequests ?? {}, cancellation);
      context = { ...context, input: { responses, state: outcome.state } };
      outcome = await invocation.run(context);
    }
    return { message: resultMessage(id, complete(scope, outcome)) };
  } catch (error) {
    if (!(error instanceof GatewayError)) {
      scope.report(error);
      return failure(id, 'internal');
    }
    if (isOperatorsToSee(error)) scope.report(error);
    if (invocation.refused && error.code !== 'client_capability_missing') {
      return { message: resultMessage(id, complete(scope, invocation.refused(error))) };
    }
    const shown = publicError(error);
    return failure(id, invocation.translate?.(error) ?? error.code, shown.message, error.detail);
  } finally {
    if (scope.running?.get(id) === cancellation) scope.running.delete(id);
  }
}

/** A modern retry's answers and state (the state checked against this request). */
async function modernInput<P extends McpPrincipal>(
  scope: RequestScope<P>,
  binding: Omit<RequestStateBinding, 'principal'>,
  params: Record<string, unknown> | undefined,
): Promise<RequestContext['input']> {
  const responses = params?.inputResponses;
  const sealed = params?.requestState;
  if (
    responses !== undefined &&
    !(isPlainObject(responses) && Object.values(responses).every(isPlainObject))
  ) {
    throw new GatewayError(
      'invalid_params',
      'Invalid params: inputResponses must map each request key to its result object',
      { field: 'params.inputResponses' },
    );
  }
  if (sealed !== undefined && typeof sealed !== 'string') {
    throw new GatewayError('request_state_invalid', undefined, { field: 'params.requestState' });
  }
  const state =
    sealed === undefined
      ? undefined
      : await scope.sealer.open(sealed, { principal: scope.principal, ...binding });
  return { responses: responses ?? {}, state };
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

async function inputRequiredResult<P extends McpPrincipal>(
  scope: RequestScope<P>,
  binding: Omit<RequestStateBinding, 'principal'>,
  outcome: InputRequired,
): Promise<Record<string, unknown>> {
  requireCapabilities(scope.clientCapabilities, outcome.inputRequests);
  const result: Record<string, unknown> = { resultType: 'input_required' };
  if (outcome.inputRequests !== undefined) result.inputRequests = outcome.inputRequests;
  // A result must carry requests or state; state is what binds the retry to this request.
  if (outcome.state !== undefined || outcome.inputRequests === undefined) {
    result.requestState = await scope.sealer.seal(outcome.state, {
      principal: scope.principal,
      ...binding,
    });
  }
  result._meta = scope.serverMeta;
  return result;
}

/** The capability each input request needs the client to have declared. */
const NEEDS: Readonly<Record<string, keyof ClientCapabilities>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Input the client did not say it can give is refused, never asked for (MRTR server requirements). */
function requireCapabilities(
  declared: ClientCapabilities,
  requests: Record<string, InputRequest> | undefined,
): void {
  const missing: Record<string, object> = {};
  for (const request of Object.values(requests ?? {})) {
    const capability = NEEDS[request.method];
    if (capability === undefined) {
      throw new GatewayError('internal', `a backend asked for input with ${request.method}`);
    }
    if (declared[capability] === undefined) missing[capability] = {};
  }
  if (Object.keys(missing).length > 0) {
    throw new GatewayError(
      'client_capability_missing',
      `the client did not declare ${Object.keys(missing).join(', ')}, which this call needs`,
      { detail: { requiredCapabilities: missing } },
    );
  }
}

/** A result as the era writes it: modern results say they are complete and who served them. */
function complete<P extends McpPrincipal>(scope: RequestScope<P>, result: object): object {
  if (scope.era === 'legacy') return result;
  // Copied member by member (a spread of an object of unknown shape is slow on this path).
  const written: Record<string, unknown> = { resultType: 'complete' };
  const members = result as Record<string, unknown>;
  for (const key in members) written[key] = members[key];
  const meta = members._meta as Record<string, unknown> | undefined;
  written._meta =
    meta === undefined ? scope.serverMeta : { ...meta, [SERVER_INFO_META_KEY]: scope.serverInfo };
  return written;
}

function progressReporter(
  reply: PendingReply,
  token: ProgressToken | undefined,
): RequestContext['progress'] {
  if (token === undefined) return () => {};
  let last = Number.NEGATIVE_INFINITY;
  return (progress, total, message) => {
    // Progress must increase with every notification.
    if (!(progress > last)) return;
    last = progress;
    reply.send({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  };
}

function logger<P extends McpPrincipal>(scope: RequestScope<P>): RequestContext['log'] {
  return (level, data, name) => {
    if (!logLevelWanted(scope.logLevel, level)) return;
    scope.reply.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level, data: data as JsonValue, ...(name === undefined ? {} : { logger: name }) },
    });
  };
}

/** A refused or failed tool call as the agent sees it: its reason code, never an internal message. */
function toolErrorResult(error: GatewayError): CallToolResult {
  const shown = publicError(error);
  return {
    isError: true,
    content: [{ type: 'text', text: `${shown.code}: ${shown.message}` }],
    structuredContent: { error: shown },
  };
}

function failure(id: JsonRpcId, reason: ReasonCode, message?: string, data?: unknown): Answer {
  return {
    message: rpcErrorOf(reason, {
      id,
      ...(message === undefined ? {} : { message }),
      ...(data === undefined ? {} : { data }),
    }),
    reason,
  };
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
