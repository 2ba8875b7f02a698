/**
 * Forwarding one governed call to a remote MCP server: the connection's
 * credential becomes its headers (checked again as they go out), the call
 * goes out in the caller's upstream session (per connection and credential
 * owner, opened once however many calls ask at once; a changed credential
 * replaces it, and the old one is ended upstream once no call runs on it),
 * and the reply comes back bounded and checked.
 *
 * Seed 003: a reply that is too large, not JSON, or not an answer to the
 * request fails only that call, leaves health alone, and forgets only the
 * caller's session, and only while it is still the one that failed. A 404 for
 * the session opens a new one once, for that caller. The server's status
 * errors, JSON-RPC errors and the network's failures count against health.
 */
import { createHash } from 'node:crypto';
import type { CallToolResult, InputRequest } from '@modelcontextprotocol/server';
import type { CancelSignal } from '../../base/cancellation.ts';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject, type JsonValue } from '../../base/json-value.ts';
import type { UpstreamTokens } from '../../identity/oauth-client/upstream-tokens.ts';
import {
  SessionExpired,
  type UpstreamClient,
  type UpstreamSession,
} from '../../mcp/client/upstream-client.ts';
import {
  SESSION_WIRES,
  type SessionWire,
  sessionKey,
  type UpstreamSessions,
} from '../../mcp/client/upstream-sessions.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { InputRequired } from '../../mcp/server/tool-backend.ts';
import { isClientRequest } from '../../mcp/wire/client-capability.ts';
import type { RpcAnswer, RpcNotification } from '../../mcp/wire/json-rpc.ts';
import type { RemoteEndpoint } from '../../model/remote.ts';
import { Redactor } from '../../outbound/redaction.ts';
import type { CallOutcome } from '../connection-health.ts';
import type { ExecuteCall, Execution, Executor } from '../executor.ts';
import type { HeldExchangeRelay, RelayedAnswer, RoundNotices } from './held-exchange-relay.ts';
import { HeldExchange, HeldExchanges, type Step } from './held-exchanges.ts';
import { openSession, wireFor } from './open-session.ts';
import { credentialHeaders } from './remote-headers.ts';
import type { RemoteTarget } from './remote-tool-source.ts';
import { ResourceSubscriptions, type UpdateListener } from './resource-subscriptions.ts';
import { SIGN_IN_INPUT, signInElicitation } from './sign-in-elicitation.ts';
import { withCredential } from './signed-in-credential.ts';
import { UpstreamTargets } from './upstream-targets.ts';

/** Codes about one reply, not the connection: they change nothing but the caller's session. */
const CALL_ONLY = new Set([
  'mcp_remote_response_too_large',
  'mcp_remote_malformed_response',
  'mcp_remote_invalid_json',
]);

const HEALTH_FAILURES = new Set([
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_deadline_exceeded',
  'write_outcome_unknown',
  'upstream_address_refused',
  'mcp_remote_status',
  'mcp_remote_error',
  'mcp_remote_session_expired',
]);

export class RemoteMcpExecutor implements Executor<RemoteTarget> {
  readonly kind = 'remote_mcp';
  readonly #client: UpstreamClient;
  readonly #sessions: UpstreamSessions;
  /** The access tokens of signed-in (`oauth`) connections; without it their calls go out bare. */
  tokens: UpstreamTokens | undefined;
  readonly #targets = new UpstreamTargets((endpoint, credential, secrets) => {
    const target = upstreamTarget(endpoint, credential, secrets);
    return { target, identity: credentialIdentity(target.headers) };
  });
  /** Told of each upstream session this executor opens (to listen for list changes). */
  sessionOpened:
    | ((connectionId: string, target: UpstreamTarget, session: UpstreamSession) => void)
    | undefined;

  /** Told of each session retired here as it is ended (its listening stream ends too). */
  sessionEnded: ((connectionId: string, session: UpstreamSession) => void) | undefined;
  /** Where each session was opened, to end it there. */
  readonly #openedAt = new WeakMap<
    UpstreamSession,
    { connectionId: string; target: UpstreamTarget }
  >();

  /** Resource subscriptions made upstream, per session key and URI. */
  readonly #subscriptions: ResourceSubscriptions;

  readonly #held: HeldExchanges;
  /** Answers for exchanges another replica holds go there through it; none: they are expired. */
  #relay: HeldExchangeRelay<Forwarded> | undefined;

  constructor(client: UpstreamClient, sessions: UpstreamSessions, held = new HeldExchanges()) {
    this.#client = client;
    this.#sessions = sessions;
    this.#held = held;
    this.#subscriptions = new ResourceSubscriptions(client);
    sessions.onRetired = (session) => this.#retired(session);
  }

  /** Shares this executor's held exchanges with the other replicas through `relay`. */
  relayHeldThrough(relay: HeldExchangeRelay<Forwarded>): void {
    this.#relay = relay;
    this.#held.released = (id) => relay.released(id);
    relay.serve((answer, cancel, notices) => this.#resumeRelayed(answer, cancel, notices));
  }

  async execute(call: ExecuteCall<RemoteTarget>): Promise<Execution> {
    const { name } = call.target.action;
    // The answer to a sign-in link Portcullis asked for is Portcullis's, never the server's.
    const signInAnswered = call.input?.responses[SIGN_IN_INPUT] !== undefined;
    let forwarded: Forwarded;
    try {
      forwarded = await this.forward({
        ...call,
        ...(signInAnswered ? { input: undefined } : {}),
        method: 'tools/call',
        params: { name, arguments: call.arguments },
      });
    } catch (error) {
      // The agent's person signs in first, where its client can open a link for them.
      const asked = signInElicitation(error, call, new URL(call.target.source.endpoint.url).host);
      if (asked) return asked;
      throw error;
    }
    return forwarded as Execution;
  }

  /**
   * One request to the connection's server in the caller's upstream session
   * (a tool call, a prompt, a resource, a list): its result, or the question
   * the server asks first (held until the agent's answer comes back).
   */
  async forward(call: ForwardCall): Promise<Forwarded> {
    const relay = relayStateOf(call.input?.state);
    // An answer to a held question goes out on the exchange already open (its credential with it).
    if (relay?.held !== undefined) return this.#resume(call, relay.held, relay.key ?? '');
    return this.#withCredential(call, (credential) => this.#send(call, credential, relay));
  }

  /**
   * Runs `send` with the call's credential; for a signed-in (`oauth`)
   * connection that is its access token as Bearer, fresh once after a 401.
   */
  #withCredential<T>(
    call: Pick<ForwardCall, 'target' | 'credential' | 'credentialOwner'>,
    send: (credential: Record<string, string> | undefined) => Promise<T>,
  ): Promise<T> {
    const { connection, source } = call.target;
    const { authKind } = source.endpoint;
    // A key or headers the call must carry and has not: refused before anything is sent.
    if ((authKind === 'bearer' || authKind === 'headers') && isEmpty(call.credential))
      return Promise.reject(
        new GatewayError(
          'credential_missing',
          call.credentialOwner
            ? `connection ${connection.name} has no credential of this agent's own (its grant is personal): portcullis credential set ${connection.name} --agent <agent>`
            : `connection ${connection.name} has no credential`,
          // The code in a prompt's or resource's JSON-RPC error data too: the agent's client reads it there.
          {
            detail: {
              code: 'credential_missing',
              credential: call.credentialOwner ? 'personal' : 'shared',
            },
          },
        ),
      );
    return withCredential(
      this.tokens,
      {
        connection,
        endpoint: source.endpoint,
        credential: call.credential,
        agentId: call.credentialOwner ?? null,
      },
      send,
    );
  }

  async #send(
    call: ForwardCall,
    credential: Record<string, string> | undefined,
    relay: ReturnType<typeof relayStateOf>,
  ): Promise<Forwarded> {
    const { source } = call.target;
    const { target, identity } = this.#targets.of(source.endpoint, credential, call.secrets);
    const key = keyOf(call);
    const progressToken = `pc-${Math.random().toString(36).slice(2)}`;
    const params: Record<string, unknown> = { ...call.params, _meta: { progressToken } };
    let session = await this.#session(call, target, key, identity);
    // A 2026-07-28 server's own question, answered: its answers (and its state) go back to it,
    // also when it kept none (an ephemeral question).
    if (session.era === 'modern' && call.input !== undefined) {
      params.inputResponses = call.input.responses;
      if (typeof relay?.modern === 'string') params.requestState = relay.modern;
    }
    const requestBytes = Buffer.byteLength(JSON.stringify(params));
    let exchange: RemoteExchange;
    let step: Step<Answered>;
    try {
      exchange = this.#start(target, session, key, params, progressToken, call);
      step = await exchange.next(call.cancel);
    } catch (error) {
      if (!(error instanceof SessionExpired)) throw this.#failed(key, session, error);
      this.#sessions.forget(key, session);
      session = await this.#session(call, target, key, identity);
      try {
        exchange = this.#start(target, session, key, params, progressToken, call);
        step = await exchange.next(call.cancel);
      } catch (again) {
        throw this.#failed(key, session, again);
      }
    }
    try {
      return await this.#executed(exchange, step, target.url.host, requestBytes);
    } catch (error) {
      throw this.#failed(key, session, error);
    }
  }

  /** What the connection's server said it serves, as the caller's session found it. */
  capabilitiesOf(
    call: Pick<ForwardCall, 'target' | 'credential' | 'credentialOwner' | 'era'>,
  ): Promise<Record<string, unknown>> {
    return this.#withCredential(call, async (credential) => {
      const { target, identity } = this.#targets.of(call.target.source.endpoint, credential);
      const key = keyOf(call);
      const session = await this.#session(call, target, key, identity);
      this.#sessions.release(session);
      return session.capabilities ?? {};
    });
  }

  /**
   * Subscribes `listener` to updates of the server's `uri` in the caller's
   * upstream session (made there once for every agent of that session);
   * resolves with what lets go of it, undone upstream with the last one.
   */
  subscribeResource(
    call: Pick<ForwardCall, 'target' | 'credential' | 'credentialOwner' | 'era'>,
    uri: string,
    listener: UpdateListener,
  ): Promise<() => Promise<void>> {
    return this.#withCredential(call, async (credential) => {
      const { target, identity } = this.#targets.of(call.target.source.endpoint, credential);
      const key = keyOf(call);
      const session = await this.#session(call, target, key, identity);
      try {
        return await this.#subscriptions.add(key, target, session, uri, listener);
      } catch (error) {
        throw this.#failed(key, session, error);
      } finally {
        this.#sessions.release(session);
      }
    });
  }

  /** A notification a session's server sent on the session's own stream (a resource updated). */
  heard(session: UpstreamSession, message: RpcNotification): void {
    this.#subscriptions.heard(session, message);
  }

  /** A connection's sessions were forgotten elsewhere (the sweep): its subscriptions end with them. */
  sessionsForgotten(connectionId: string): void {
    this.#subscriptions.endConnection(connectionId);
  }

  /** Ends every resource subscription upstream (the gateway closing). */
  endSubscriptions(): void {
    this.#subscriptions.close();
  }

  /** Resource subscriptions held upstream (tests). */
  get resourceSubscriptions(): number {
    return this.#subscriptions.size;
  }

  /**
   * The caller's upstream session, opened (once, however many ask) when
   * there is none or its credential changed; in use until `release`.
   */
  #session(
    call: Pick<ForwardCall, 'target' | 'era'>,
    target: UpstreamTarget,
    key: string,
    identity: string,
  ): Promise<UpstreamSession> {
    const { connection, source } = call.target;
    return this.#sessions.use(key, identity, async () => {
      const opened = await this.#open(target, source.endpoint, wireFor(call.era, source.endpoint));
      this.#openedAt.set(opened, { connectionId: connection.id, target });
      this.sessionOpened?.(connection.id, target, opened);
      this.#subscriptions.opened(key, target, opened);
      return opened;
    });
  }

  /** A session no call of this process uses any more (its credential changed): ended upstream. */
  #retired(session: UpstreamSession): void {
    const opened = this.#openedAt.get(session);
    if (opened === undefined) return;
    this.#subscriptions.ended(session);
    this.sessionEnded?.(opened.connectionId, session);
    this.#client.close(opened.target, session).catch(() => {});
  }

  /** An agent's answer to the question a held exchange asked: posted upstream, and the call reads on. */
  async #resume(call: ForwardCall, id: string, key: string): Promise<Forwarded> {
    const connectionId = call.target.connection.id;
    const held = this.#held.take(id, (exchange) => ofConnection(exchange, connectionId)) as
      | RemoteExchange
      | undefined;
    const answer = call.input?.responses[key];
    // Held by another replica (or by none): the answer goes only to the holder, which checks it.
    if (held === undefined && this.#relay !== undefined && !this.#held.has(id)) {
      const relayed: RelayedAnswer = {
        exchange: id,
        key,
        answer,
        capabilities: call.clientCapabilities,
        connection: connectionId,
      };
      return this.#relay.resume(relayed, call.cancel, call);
    }
    if (held === undefined) throw new GatewayError('mcp_remote_input_expired');
    return this.#answer(held, call, answer);
  }

  /** An answer another replica brought for an exchange held here; its round's notifications go back there. */
  async #resumeRelayed(
    relayed: RelayedAnswer,
    cancel: CancelSignal,
    notices: RoundNotices,
  ): Promise<Forwarded> {
    const held = this.#held.take(relayed.exchange, (exchange) =>
      ofConnection(exchange, relayed.connection),
    ) as RemoteExchange | undefined;
    if (held === undefined) throw new GatewayError('mcp_remote_input_expired');
    const call: ForwardCall = {
      ...held.call,
      cancel,
      clientCapabilities: relayed.capabilities,
      progress: notices.progress,
      log: notices.log,
      input: { responses: { [relayed.key]: relayed.answer as JsonValue }, state: undefined },
    };
    return this.#answer(held, call, relayed.answer);
  }

  /** Posts `answer` upstream on the held exchange, and reads on to its next step. */
  async #answer(held: RemoteExchange, call: ForwardCall, answer: unknown): Promise<Forwarded> {
    held.call = call;
    held.capabilities = call.clientCapabilities;
    held.answer(answerOf(answer));
    let step: Step<Answered>;
    try {
      step = await held.next(call.cancel);
      return await this.#executed(held, step, held.host, 0);
    } catch (error) {
      throw this.#failed(held.sessionKey, held.session, error);
    }
  }

  /** The call's request, as an exchange that may stop to ask the agent. */
  #start(
    target: UpstreamTarget,
    session: UpstreamSession,
    key: string,
    params: Record<string, unknown>,
    progressToken: string,
    call: ForwardCall,
  ): RemoteExchange {
    const exchange = new HeldExchange<Answered>((onRequest, cancel) => {
      const request = this.#client.request(target, session, call.method, params, {
        cancel,
        // Relayed as they arrive, before the result, to the round running now.
        onNotification: (message) => relay([message], progressToken, exchange.call),
        onRequest,
        clientCapabilities: call.clientCapabilities as Record<string, unknown>,
      });
      // The session is in use until the exchange ends (held questions included).
      const done = () => this.#sessions.release(session);
      request.then(done, done);
      return request;
    }, call.clientCapabilities) as RemoteExchange;
    exchange.call = call;
    exchange.connectionId = call.target.connection.id;
    exchange.sessionKey = key;
    exchange.session = session;
    exchange.host = target.url.host;
    return exchange;
  }

  /**
   * The result, checked for its method's shape, or the question to put to
   * the agent (its exchange held until the answer comes). A result of the
   * wrong shape is malformed: the caller throws it through `#failed`, which
   * forgets the session it came on.
   */
  async #executed(
    exchange: RemoteExchange,
    step: Step<Answered>,
    host: string,
    requestBytes: number,
  ): Promise<Forwarded> {
    const base = { host, address: null, upstreamStatus: 200, requestBytes };
    if (step.kind === 'asks') {
      if (!this.#held.hold(exchange as HeldExchange<unknown>)) {
        exchange.answer({
          error: { code: -32603, message: 'Portcullis holds too many questions' },
        });
        exchange.cancel.cancel();
        throw new GatewayError('mcp_remote_input_expired');
      }
      // Before the question goes out, so the answer finds the holder from any replica.
      await this.#relay?.held(exchange.id, this.#held.holdMs);
      const { request } = step;
      const questionKey = `upstream_${String(request.id).slice(0, 40)}`;
      return {
        ...base,
        outcome: {
          resultType: 'input_required',
          inputRequests: {
            [questionKey]: { method: request.method, params: request.params ?? {} } as InputRequest,
          },
          state: { held: exchange.id, key: questionKey },
        },
        replyBytes: Buffer.byteLength(JSON.stringify(request)),
        health: 'success',
      };
    }
    const { result } = step.value;
    const checked = RESULT_SHAPES[exchange.call.method];
    return {
      ...base,
      outcome:
        result.resultType === 'input_required'
          ? inputRequiredOf(result)
          : (checked?.(result) ?? result),
      replyBytes: Buffer.byteLength(JSON.stringify(result)),
      health: 'success',
    };
  }

  /**
   * Seed 003: what one caller's own credential brings on (the server
   * refusing an agent's personal key, a 401 or 403) says nothing about the
   * connection the others share, and leaves its health alone.
   */
  healthOutcomeOf(error: unknown, call?: Pick<ExecuteCall, 'credentialOwner'>): CallOutcome {
    if (!(error instanceof GatewayError)) return 'neutral';
    if (error.detail?.cancelled === true || isCancelled(error)) return 'neutral';
    if (call?.credentialOwner && isRefusal(error)) return 'neutral';
    return HEALTH_FAILURES.has(error.code) ? 'failure' : 'neutral';
  }

  /** Cancels every call held for an agent's answer (the gateway closing). */
  cancelHeld(): void {
    this.#held.cancelAll();
  }

  /** Forgets every session of a connection (disconnect: the caller ends them). */
  forgetConnection(connectionId: string): UpstreamSession[] {
    const forgotten = this.#sessions.forgetConnection(connectionId);
    for (const session of forgotten) this.#subscriptions.ended(session);
    return forgotten;
  }

  /**
   * Retires the sessions of one credential (`owner`: an agent's id, null for
   * the shared one), or of all the connection's when undefined: a sign-in, a
   * sign-out or a credential set. Each is ended upstream once no call runs on it.
   */
  endSessions(connectionId: string, owner?: string | null): void {
    if (owner === undefined) this.#sessions.retireConnection(connectionId);
    else
      for (const wire of SESSION_WIRES)
        this.#sessions.retireKey(sessionKey(connectionId, owner ?? '', wire));
  }

  /**
   * A session is shared by every agent with the same credential, so it
   * declares all it may relay; each question is relayed or refused by what
   * the calling agent's client declared.
   */
  async #open(
    target: UpstreamTarget,
    endpoint: RemoteEndpoint,
    wire: SessionWire,
  ): Promise<UpstreamSession> {
    const session = await openSession(
      this.#client,
      target,
      endpoint,
      { clientCapabilities: RELAYED },
      wire,
    );
    if (session.era !== 'modern') {
      // Every level: what reaches the agent is filtered by the level the agent asked for.
      if (session.capabilities?.logging !== undefined)
        await this.#client
          .request(target, session, 'logging/setLevel', { level: 'debug' })
          .catch(() => {});
      return session;
    }
    // Nothing to open on 2026-07-28: `server/discover` says what the server serves.
    const hello = await this.#client.discover(target).catch(() => undefined);
    return { ...session, capabilities: hello?.capabilities ?? {} };
  }

  /** The error the call fails with; a reply-only one forgets the caller's session (if still that one). */
  #failed(key: string, session: UpstreamSession, error: unknown): unknown {
    if (error instanceof SessionExpired) {
      this.#sessions.forget(key, session);
      return new GatewayError('mcp_remote_session_expired');
    }
    if (error instanceof GatewayError && CALL_ONLY.has(error.code))
      this.#sessions.forget(key, session);
    return error;
  }
}

/** The caller's upstream session's key: its connection, its credential's owner, its wire. */
function keyOf(call: Pick<ForwardCall, 'target' | 'credentialOwner' | 'era'>): string {
  const { connection, source } = call.target;
  return sessionKey(connection.id, call.credentialOwner ?? '', wireFor(call.era, source.endpoint));
}

/**
 * The upstream address with the credential's headers, checked as they go
 * out; what comes back is redacted of the credential, and of `secrets` (the
 * caller's workspace's) when given.
 */
export function upstreamTarget(
  endpoint: RemoteEndpoint,
  credential: Record<string, string> | undefined,
  secrets?: Redactor,
): UpstreamTarget {
  const headers = credentialHeaders(credential, endpoint.headerNames);
  return {
    url: new URL(endpoint.url),
    headers,
    redactor: new Redactor(Object.values(credential ?? {}), secrets),
  };
}

/** Who the upstream sees: a hash of the credential headers (the same credential, the same session). */
export function credentialIdentity(headers: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(headers).sort()) hash.update(`${name}\0${headers[name]}\0`);
  return hash.digest('hex').slice(0, 32);
}

/** Progress and log messages the upstream sent about this call, relayed to the agent. */
function relay(
  messages: readonly RpcNotification[],
  token: string,
  call: Pick<ExecuteCall, 'progress' | 'log'>,
): void {
  for (const message of messages) {
    const params = message.params ?? {};
    if (message.method === 'notifications/progress' && params.progressToken === token) {
      if (typeof params.progress === 'number')
        call.progress(
          params.progress,
          typeof params.total === 'number' ? params.total : undefined,
          typeof params.message === 'string' ? params.message : undefined,
        );
    } else if (message.method === 'notifications/message') {
      const level = params.level;
      if (typeof level === 'string')
        call.log(
          level as Parameters<ExecuteCall['log']>[0],
          params.data,
          typeof params.logger === 'string' ? params.logger : undefined,
        );
    }
  }
}

/** A 2026-07-28 server's own question for the agent, relayed as it is. */
function inputRequiredOf(result: Record<string, unknown>): InputRequired {
  const requests = result.inputRequests;
  const state = result.requestState;
  if (requests !== undefined && !isPlainObject(requests))
    throw new GatewayError(
      'mcp_remote_malformed_response',
      "the remote MCP server's input_required result has inputRequests that are not an object",
    );
  for (const request of Object.values(requests ?? {})) {
    if (!isPlainObject(request) || !isClientRequest(String(request.method)))
      throw new GatewayError(
        'mcp_remote_malformed_response',
        "the remote MCP server's input_required result asks for input Portcullis cannot relay",
      );
  }
  if (state !== undefined && typeof state !== 'string')
    throw new GatewayError(
      'mcp_remote_malformed_response',
      "the remote MCP server's requestState is not a string",
    );
  const outcome: InputRequired = {
    resultType: 'input_required',
    // Sealed by the endpoint with the agent's answers' retry; given back to the server unchanged.
    state: { modern: state ?? true },
  };
  if (requests !== undefined) outcome.inputRequests = requests as InputRequired['inputRequests'];
  return outcome;
}

/** The results whose shape is checked here, by method; the others reach their callers as they are. */
const RESULT_SHAPES: Partial<
  Record<string, (result: Record<string, unknown>) => Record<string, unknown>>
> = {
  'tools/call': toolResultOf,
};

function toolResultOf(result: Record<string, unknown>): CallToolResult & Record<string, unknown> {
  if (!Array.isArray(result.content))
    throw new GatewayError(
      'mcp_remote_malformed_response',
      "the remote MCP server's tools/call result has no content array",
    );
  const outcome: CallToolResult = { content: result.content as CallToolResult['content'] };
  if (isPlainObject(result.structuredContent)) outcome.structuredContent = result.structuredContent;
  if (result.isError === true) outcome.isError = true;
  return outcome;
}

/** The server refused the credential (HTTP 401 or 403). */
function isRefusal(error: GatewayError): boolean {
  const status = error.detail?.status;
  return error.code === 'mcp_remote_status' && (status === 401 || status === 403);
}

function isEmpty(credential: Record<string, string> | undefined): boolean {
  return credential === undefined || Object.values(credential).every((value) => value === '');
}

function isCancelled(error: GatewayError): boolean {
  const cause = error.cause instanceof GatewayError ? error.cause : error;
  return cause.detail?.cause === 'aborted';
}

/** What this executor keeps in a call's sealed state between rounds. */
interface RelayState {
  /** A held exchange's id, and the key its question went out under. */
  held?: string;
  key?: string;
  /** A 2026-07-28 server's `requestState` (true: it sent none). */
  modern?: string | true;
}

function relayStateOf(state: unknown): RelayState | undefined {
  if (!isPlainObject(state)) return undefined;
  const { held, key, modern } = state;
  const relay: RelayState = {};
  if (typeof held === 'string') relay.held = held;
  if (typeof key === 'string') relay.key = key;
  if (typeof modern === 'string' || modern === true) relay.modern = modern;
  return relay;
}

/** The agent's answer as the upstream's JSON-RPC response: a result, its error, or none given. */
function answerOf(answer: unknown): RpcAnswer {
  if (isPlainObject(answer) && isPlainObject(answer.error)) {
    const { code, message } = answer.error;
    return {
      error: {
        code: typeof code === 'number' ? code : -32603,
        message: typeof message === 'string' ? message.slice(0, 500) : 'the agent refused',
      },
    };
  }
  if (isPlainObject(answer)) return { result: answer };
  return { error: { code: -32602, message: 'the agent gave no answer to this request' } };
}

/** Everything a session may relay to an agent (declared when it opens). */
const RELAYED = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

type Answered = Awaited<ReturnType<UpstreamClient['request']>>;

/** One request to forward: a tool call's context, with the method and params to send. */
export interface ForwardCall extends Omit<ExecuteCall, 'target' | 'arguments'> {
  target: Pick<RemoteTarget, 'connection' | 'source'>;
  method: string;
  params: Record<string, unknown>;
}

/** What a forwarded request did: the server's result (or its question), and what to audit. */
export interface Forwarded extends Omit<Execution, 'outcome'> {
  outcome: Record<string, unknown> | InputRequired;
}

/** A held request, with what its later rounds need to go on in the same session. */
type RemoteExchange = HeldExchange<Answered> & {
  call: ForwardCall;
  connectionId: string;
  sessionKey: string;
  session: UpstreamSession;
  host: string;
};

/** Whether a held exchange is a call on `connectionId` (an answer for another names it in vain). */
function ofConnection(
  exchange: HeldExchange<unknown>,
  connectionId: string,
): exchange is RemoteExchange {
  return (exchange as Partial<RemoteExchange>).connectionId === connectionId;
}
