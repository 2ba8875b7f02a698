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
 * errors, JSON-RPC errors and the network's failures count against health
 * (remote-call-health.ts).
 *
 * A question the server asks mid-call is held (its exchange kept open) until
 * the agent's answer comes back, on this replica or, through the relay,
 * from another one.
 */
import { GatewayError, RpcCode } from '../../base/errors.ts';
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
import { isInputRequired } from '../../mcp/server/tool-backend.ts';
import { declaresTasks, isTaskStarted, type TaskStarted } from '../../mcp/wire/tasks.ts';
import type { ActingFor } from '../../model/delegation.ts';
import type { CallOutcome } from '../connection-health.ts';
import type { ExecuteCall, ExecuteTask, Execution, Executor, TaskExecution } from '../executor.ts';
import type { ForwardCall, Forwarded } from './forward-call.ts';
import type { Step } from './held-exchanges.ts';
import { HeldQuestions, type HeldQuestionsRelay } from './held-questions.ts';
import { openCallSession, wireFor } from './open-session.ts';
import type { OpenedSessions } from './opened-sessions.ts';
import { isReplyOnly, remoteCallOutcome } from './remote-call-health.ts';
import { type Answered, RemoteExchange } from './remote-exchange.ts';
import {
  checkedResult,
  checkedTaskState,
  type RelayState,
  relayStateOf,
} from './remote-replies.ts';
import type { RemoteTarget } from './remote-tool-source.ts';
import type { ResourceSubscriptions, UpdateListener } from './resource-subscriptions.ts';
import { SIGN_IN_INPUT, signInElicitation } from './sign-in-elicitation.ts';
import {
  actsOnBehalf,
  MEMBER_OWNER,
  missingCredential,
  withCredential,
} from './signed-in-credential.ts';
import { resolveTarget, UpstreamTargets } from './upstream-targets.ts';

export type { ForwardCall, Forwarded } from './forward-call.ts';

export interface RemoteMcpExecutorOptions {
  client: UpstreamClient;
  /** The callers' upstream sessions (a retired one is ended through `openedSessions`). */
  sessions: UpstreamSessions;
  /** Where each session opened here was opened, recorded as it opens. */
  openedSessions: OpenedSessions;
  /** Resource subscriptions made upstream, per session key and URI. */
  subscriptions: ResourceSubscriptions;
  /** The access tokens of signed-in (`oauth`) connections; without them their calls go out bare. */
  tokens?: UpstreamTokens;
  /** Told of each upstream session opened here (to listen for list changes, to sweep it). */
  sessionOpened?: (connectionId: string, target: UpstreamTarget, session: UpstreamSession) => void;
  /** Where held questions are shared with the other replicas (without it, only this one answers). */
  relay?: HeldQuestionsRelay;
}

export class RemoteMcpExecutor implements Executor<RemoteTarget> {
  readonly kind = 'remote_mcp';
  readonly #options: RemoteMcpExecutorOptions;
  readonly #client: UpstreamClient;
  readonly #sessions: UpstreamSessions;
  readonly #subscriptions: ResourceSubscriptions;
  readonly #targets = new UpstreamTargets(resolveTarget);
  /** Questions the servers asked mid-call, held for the agents' answers. */
  readonly #questions: HeldQuestions;

  constructor(options: RemoteMcpExecutorOptions) {
    this.#options = options;
    this.#client = options.client;
    this.#sessions = options.sessions;
    this.#subscriptions = options.subscriptions;
    this.#questions = new HeldQuestions({
      answer: (held, call, answer) => this.#answer(held, call, answer),
      relay: options.relay,
    });
  }

  delegates(target: RemoteTarget, acting: ActingFor): boolean {
    return actsOnBehalf({ endpoint: target.source.endpoint, actingFor: acting });
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
    if (isTaskStarted(forwarded.outcome)) {
      // A task only for a client that takes them; the caller's, under an id of ours.
      if (call.startTask === undefined)
        throw new GatewayError(
          'mcp_remote_malformed_response',
          'the remote MCP server answered with a task a client that takes none did not ask for',
        );
      const { resultType: _, ...state } = forwarded.outcome as TaskStarted;
      return { ...forwarded, outcome: await call.startTask({ state, era: call.era }) };
    }
    return forwarded as Execution;
  }

  /**
   * A `tasks/*` for a task the server started: forwarded in the caller's
   * upstream session of the era the task started in, with the call's
   * credential, its reply redacted and checked as a call's is (`tasks/get`:
   * the task, its inlined result a tool result, under the caller's id).
   * The server's not knowing the task (-32602) is `task_not_found`.
   */
  async task(call: ExecuteTask<RemoteTarget>): Promise<TaskExecution> {
    const { ticket, request } = call;
    const params: Record<string, unknown> = { taskId: ticket.upstreamId };
    if (request.method === 'tasks/update') params.inputResponses = request.inputResponses ?? {};
    let forwarded: Forwarded;
    try {
      forwarded = await this.forward({
        ...call,
        input: undefined,
        era: ticket.era,
        method: request.method,
        params,
      });
    } catch (error) {
      if (error instanceof GatewayError && error.detail?.rpcCode === RpcCode.invalidParams)
        throw new GatewayError('task_not_found', undefined, { cause: error });
      throw error;
    }
    const { outcome, health: _, ...upstream } = forwarded;
    if (request.method !== 'tasks/get') return { ...upstream, state: undefined };
    if (isInputRequired(outcome))
      throw new GatewayError(
        'mcp_remote_malformed_response',
        "the remote MCP server's tasks/get asked for input",
      );
    const state = checkedTaskState(outcome);
    state.taskId = request.taskId;
    state.ttlMs = ticket.expiresAt - ticket.createdAt;
    return { ...upstream, state };
  }

  /**
   * One request to the connection's server in the caller's upstream session
   * (a tool call, a prompt, a resource, a list): its result, or the question
   * the server asks first (held until the agent's answer comes back).
   */
  async forward(call: ForwardCall): Promise<Forwarded> {
    const relay = relayStateOf(call.input?.state);
    // An answer to a held question goes out on the exchange already open (its credential with it).
    if (relay?.held !== undefined) return this.#questions.resume(call, relay.held, relay.key ?? '');
    return this.#withCredential(call, (credential) => this.#send(call, credential, relay));
  }

  /**
   * Runs `send` with the call's credential; for a signed-in (`oauth`)
   * connection that is its access token as Bearer, fresh once after a 401.
   */
  #withCredential<T>(
    call: Pick<ForwardCall, 'target' | 'credential' | 'credentialOwner' | 'actingFor'>,
    send: (credential: Record<string, string> | undefined) => Promise<T>,
  ): Promise<T> {
    const { connection, source } = call.target;
    const holder = {
      connection,
      endpoint: source.endpoint,
      credential: call.credential,
      agentId: call.credentialOwner ?? null,
      actingFor: call.actingFor,
    };
    // A key or headers the call must carry and has not: refused before anything is sent.
    const missing = missingCredential(holder);
    if (missing) return Promise.reject(missing);
    return withCredential(this.#options.tokens, holder, send);
  }

  async #send(
    call: ForwardCall,
    credential: Record<string, string> | undefined,
    relay: RelayState | undefined,
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
    // The session is in use until the exchange ends (held questions included).
    const start = (on: UpstreamSession) =>
      new RemoteExchange({
        client: this.#client,
        target,
        session: on,
        sessionKey: key,
        params,
        progressToken,
        call,
        done: () => this.#sessions.release(on),
      });
    let exchange: RemoteExchange;
    let step: Step<Answered>;
    try {
      exchange = start(session);
      step = await exchange.next(call.cancel);
    } catch (error) {
      if (!(error instanceof SessionExpired)) throw this.#failed(key, session, error);
      this.#sessions.forget(key, session);
      session = await this.#session(call, target, key, identity);
      try {
        exchange = start(session);
        step = await exchange.next(call.cancel);
      } catch (again) {
        throw this.#failed(key, session, again);
      }
    }
    try {
      return await this.#executed(exchange, step, requestBytes);
    } catch (error) {
      throw this.#failed(key, session, error);
    }
  }

  /** What the connection's server said it serves, as the caller's session found it. */
  capabilitiesOf(
    call: Pick<ForwardCall, 'target' | 'credential' | 'credentialOwner' | 'era' | 'actingFor'>,
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
    call: Pick<ForwardCall, 'target' | 'credential' | 'credentialOwner' | 'era' | 'actingFor'>,
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

  /** Resource subscriptions held upstream (tests). */
  get resourceSubscriptions(): number {
    return this.#subscriptions.size;
  }

  /**
   * The caller's upstream session, opened (once, however many ask) when
   * there is none or its credential changed; in use until `release`.
   */
  #session(
    call: Pick<ForwardCall, 'target' | 'era'> & Partial<Pick<ForwardCall, 'clientCapabilities'>>,
    target: UpstreamTarget,
    key: string,
    identity: string,
  ): Promise<UpstreamSession> {
    const { connection, source } = call.target;
    return this.#sessions.use(key, identity, async () => {
      const wire = wireOf(call);
      const opened = await openCallSession(this.#client, target, source.endpoint, wire);
      this.#options.openedSessions.opened(opened, target);
      this.#options.sessionOpened?.(connection.id, target, opened);
      this.#subscriptions.opened(key, target, opened);
      return opened;
    });
  }

  /** Posts `answer` upstream on the held exchange, and reads on to its next step. */
  async #answer(held: RemoteExchange, call: ForwardCall, answer: unknown): Promise<Forwarded> {
    held.answer(call, answer);
    try {
      const step = await held.next(call.cancel);
      return await this.#executed(held, step, 0);
    } catch (error) {
      throw this.#failed(held.sessionKey, held.session, error);
    }
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
    requestBytes: number,
  ): Promise<Forwarded> {
    const base = { host: exchange.host, address: null, upstreamStatus: 200, requestBytes };
    if (step.kind === 'asks')
      return {
        ...base,
        outcome: await this.#questions.hold(exchange, step.request),
        replyBytes: Buffer.byteLength(JSON.stringify(step.request)),
        health: 'success',
      };
    const { result } = step.value;
    return {
      ...base,
      outcome: checkedResult(exchange.call.method, result),
      replyBytes: Buffer.byteLength(JSON.stringify(result)),
      health: 'success',
    };
  }

  /** Seed 003: what a failure says about the connection's health (remote-call-health.ts). */
  healthOutcomeOf(error: unknown, call?: Pick<ExecuteCall, 'credentialOwner'>): CallOutcome {
    return remoteCallOutcome(error, call);
  }

  /** Cancels every call held for an agent's answer (the gateway closing). */
  cancelHeld(): void {
    this.#questions.cancelAll();
  }

  /** Stops answering for, and asking, the other replicas (the gateway closing). */
  closeRelay(): void {
    this.#questions.closeRelay();
  }

  /** Forgets every upstream session and ends each upstream (the gateway closing). */
  async closeSessions(): Promise<void> {
    const { openedSessions } = this.#options;
    await Promise.all(this.#sessions.forgetAll().map((session) => openedSessions.end(session)));
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

  /** The error the call fails with; a reply-only one forgets the caller's session (if still that one). */
  #failed(key: string, session: UpstreamSession, error: unknown): unknown {
    if (error instanceof SessionExpired) {
      this.#sessions.forget(key, session);
      return new GatewayError('mcp_remote_session_expired');
    }
    if (isReplyOnly(error)) this.#sessions.forget(key, session);
    return error;
  }
}

/** The caller's upstream session's key: its connection, its credential's owner, its wire. */
function keyOf(
  call: Pick<ForwardCall, 'target' | 'credentialOwner' | 'era'> &
    Partial<Pick<ForwardCall, 'clientCapabilities' | 'actingFor'>>,
): string {
  const { connection, source } = call.target;
  // A member's calls with their exchanged token keep a session of their own.
  const owner = actsOnBehalf({ endpoint: source.endpoint, actingFor: call.actingFor })
    ? `${MEMBER_OWNER}${call.actingFor!.memberId}`
    : (call.credentialOwner ?? '');
  return sessionKey(connection.id, owner, wireOf(call));
}

/** The caller's upstream session's wire: its era's, of its own when it takes tasks. */
function wireOf(
  call: Pick<ForwardCall, 'target' | 'era'> & Partial<Pick<ForwardCall, 'clientCapabilities'>>,
): SessionWire {
  return wireFor(call.era, call.target.source.endpoint, declaresTasks(call.clientCapabilities));
}
