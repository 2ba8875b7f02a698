/**
 * The questions remote servers ask mid-call, held for the agent's answer:
 * each exchange kept open here (held-exchanges.ts) and, with a relay,
 * recorded in the shared state, so an answer brought to any replica
 * reaches the one holding it (held-exchange-relay.ts). An answer names its
 * exchange and the connection its call is for: one for another
 * connection's exchange names it in vain, and the exchange stays held.
 */
import type { InputRequest } from '@modelcontextprotocol/server';
import type { CancelSignal } from '../../base/cancellation.ts';
import { GatewayError } from '../../base/errors.ts';
import type { JsonValue } from '../../base/json-value.ts';
import type { InputRequired } from '../../mcp/server/tool-backend.ts';
import type { RpcRequest } from '../../mcp/wire/json-rpc.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { ForwardCall, Forwarded } from './forward-call.ts';
import { HeldExchangeRelay, type RelayedAnswer, type RoundNotices } from './held-exchange-relay.ts';
import { HeldExchanges } from './held-exchanges.ts';
import type { RemoteExchange } from './remote-exchange.ts';

export interface HeldQuestionsOptions {
  /** Posts the agent's answer on an exchange held here, and reads on to its next step. */
  answer: (held: RemoteExchange, call: ForwardCall, answer: unknown) => Promise<Forwarded>;
  /**
   * Where the held exchanges are shared with the other replicas. Without it,
   * an answer for an exchange held elsewhere is expired.
   */
  relay?: HeldQuestionsRelay | undefined;
}

export interface HeldQuestionsRelay {
  state: SharedState;
  /** How long an answer waits for the holder's step: the upstream deadline. */
  waitMs: number;
  report?: (error: unknown) => void;
}

export class HeldQuestions {
  readonly #answer: HeldQuestionsOptions['answer'];
  readonly #held: HeldExchanges<RemoteExchange>;
  readonly #relay: HeldExchangeRelay<Forwarded> | undefined;

  constructor(options: HeldQuestionsOptions) {
    this.#answer = options.answer;
    const relay =
      options.relay &&
      new HeldExchangeRelay<Forwarded>(options.relay.state, {
        waitMs: options.relay.waitMs,
        resume: (answer, cancel, notices) => this.#resumeRelayed(answer, cancel, notices),
        ...(options.relay.report ? { report: options.relay.report } : {}),
      });
    this.#relay = relay;
    this.#held = new HeldExchanges<RemoteExchange>(
      relay ? { released: (id) => relay.released(id) } : {},
    );
  }

  /**
   * The server's question on `exchange`, held for the agent: what puts it to
   * them (an `input_required` outcome whose state names the exchange). One
   * more than can be held is refused upstream and expires at once.
   */
  async hold(exchange: RemoteExchange, request: RpcRequest): Promise<InputRequired> {
    if (!this.#held.hold(exchange)) {
      exchange.refuse({ code: -32603, message: 'Portcullis holds too many questions' });
      exchange.cancel.cancel();
      throw new GatewayError('mcp_remote_input_expired');
    }
    // Before the question goes out, so the answer finds the holder from any replica.
    await this.#relay?.held(exchange.id, this.#held.holdMs);
    const questionKey = `upstream_${String(request.id).slice(0, 40)}`;
    return {
      resultType: 'input_required',
      inputRequests: {
        [questionKey]: { method: request.method, params: request.params ?? {} } as InputRequest,
      },
      state: { held: exchange.id, key: questionKey },
    };
  }

  /** An agent's answer (under `key`) to the question exchange `id` asked: answered here, or by its holder. */
  async resume(call: ForwardCall, id: string, key: string): Promise<Forwarded> {
    const connectionId = call.target.connection.id;
    const held = this.#held.take(id, (exchange) => exchange.connectionId === connectionId);
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

  /** Cancels every exchange held here (the gateway closing). */
  cancelAll(): void {
    this.#held.cancelAll();
  }

  /** Stops answering for, and asking, the other replicas (the gateway closing). */
  closeRelay(): void {
    this.#relay?.close();
  }

  /** An answer another replica brought for an exchange held here; its round's notifications go back there. */
  async #resumeRelayed(
    relayed: RelayedAnswer,
    cancel: CancelSignal,
    notices: RoundNotices,
  ): Promise<Forwarded> {
    const held = this.#held.take(
      relayed.exchange,
      (exchange) => exchange.connectionId === relayed.connection,
    );
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
}
