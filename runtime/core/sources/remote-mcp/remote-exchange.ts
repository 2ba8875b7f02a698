/**
 * One forwarded request as an exchange that may stop to ask the agent: the
 * held exchange (held-exchanges.ts) with what its later rounds need to go on
 * in the same session — the session and its key, the server's host, and the
 * call of the round running now, to which the server's progress and log
 * notifications about the request are relayed as they arrive.
 */
import type { Cancellation, CancelSignal } from '../../base/cancellation.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { UpstreamClient, UpstreamSession } from '../../mcp/client/upstream-client.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import type { RpcAnswer, RpcNotification } from '../../mcp/wire/json-rpc.ts';
import type { ExecuteCall } from '../executor.ts';
import type { ForwardCall } from './forward-call.ts';
import { HeldExchange, type Holdable, type Step } from './held-exchanges.ts';

/** What the server's reply to a forwarded request is. */
export type Answered = Awaited<ReturnType<UpstreamClient['request']>>;

export interface RemoteExchangeOptions {
  client: UpstreamClient;
  target: UpstreamTarget;
  session: UpstreamSession;
  /** The caller's session key (a failed round forgets the session under it). */
  sessionKey: string;
  params: Record<string, unknown>;
  /** The token the request's progress notifications carry. */
  progressToken: string;
  /** The call of the first round. */
  call: ForwardCall;
  /** The exchange is done with its session (its reply came, or its failure). */
  done: () => void;
}

export class RemoteExchange implements Holdable {
  readonly #held: HeldExchange<Answered>;
  readonly connectionId: string;
  readonly sessionKey: string;
  readonly session: UpstreamSession;
  readonly host: string;
  #call: ForwardCall;

  constructor(options: RemoteExchangeOptions) {
    const { client, target, session, params, progressToken, call, done } = options;
    this.#call = call;
    this.connectionId = call.target.connection.id;
    this.sessionKey = options.sessionKey;
    this.session = session;
    this.host = target.url.host;
    this.#held = new HeldExchange<Answered>((onRequest, cancel) => {
      const request = client.request(target, session, call.method, params, {
        cancel,
        trace: call.trace,
        // Relayed as they arrive, before the result, to the round running now.
        onNotification: (message) => relayNotices(message, progressToken, this.#call),
        onRequest,
        clientCapabilities: call.clientCapabilities as Record<string, unknown>,
      });
      request.then(done, done);
      return request;
    }, call.clientCapabilities);
  }

  get id(): string {
    return this.#held.id;
  }

  get cancel(): Cancellation {
    return this.#held.cancel;
  }

  /** The call of the round running now. */
  get call(): ForwardCall {
    return this.#call;
  }

  /** Waits for the request's result or the server's next question. */
  next(cancel: CancelSignal): Promise<Step<Answered>> {
    return this.#held.next(cancel);
  }

  /** The agent's answer in `call`'s round, posted upstream as the question's reply; the exchange reads on. */
  answer(call: ForwardCall, answer: unknown): void {
    this.#call = call;
    this.#held.answer(answerOf(answer), call.clientCapabilities);
  }

  /** The question refused upstream with `error` (it cannot be held). */
  refuse(error: { code: number; message: string }): void {
    this.#held.answer({ error });
  }
}

/** A progress or log message the upstream sent about this request, relayed to the agent. */
function relayNotices(
  message: RpcNotification,
  token: string,
  call: Pick<ExecuteCall, 'progress' | 'log'>,
): void {
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
