/**
 * A remote call that stops to ask the agent (a 2025 server's
 * `elicitation/create`, `sampling/createMessage` or `roots/list` mid-call):
 * the upstream exchange stays open, held here, while the question goes to
 * the agent as input its call needs (an `input_required` result for a
 * 2026-07-28 agent, a request on the reply stream for a 2025 one). The
 * agent's answer, brought back with the sealed state, is posted upstream and
 * the exchange reads on, to its result or its next question.
 *
 * A question the agent's client cannot answer (it did not declare the
 * capability) is refused upstream at once with an error naming what is
 * missing; the server decides what its tool does then. A held exchange that
 * no answer reaches in time is cancelled (the upstream hears it).
 */
import { randomUUID } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { Cancellation, type CancelSignal } from '../../base/cancellation.ts';
import { isClientRequest, missingCapability } from '../../mcp/wire/client-capability.ts';
import type { RpcAnswer, RpcRequest } from '../../mcp/wire/json-rpc.ts';

/** How long a question waits for the agent's answer (a person may be filling in a form). */
const DEFAULT_HOLD_MS = 10 * 60_000;
/** Held at most at once; one more is refused upstream, never queued. */
const MAX_HELD = 10_000;
/** The answer a question gets when its exchange is cancelled (the server has heard of it already). */
const CANCELLED: RpcAnswer = {
  error: { code: -32800, message: 'the call was cancelled' },
};

export type Step<T> = { kind: 'done'; value: T } | { kind: 'asks'; request: RpcRequest };

export class HeldExchange<T> {
  readonly id = randomUUID();
  /** Cancels the upstream exchange: the agent cancelled, or no answer came in time. */
  readonly cancel = new Cancellation();
  /** What the agent's client declared, as of the round running now. */
  #capabilities: ClientCapabilities;
  readonly #done: Promise<T>;
  #asking: { request: RpcRequest; answer(reply: RpcAnswer): void } | undefined;
  #heard: ((request: RpcRequest) => void) | undefined;

  constructor(
    start: (
      onRequest: (request: RpcRequest) => Promise<RpcAnswer>,
      cancel: CancelSignal,
    ) => Promise<T>,
    capabilities: ClientCapabilities,
  ) {
    this.#capabilities = capabilities;
    // A question still out when the exchange is cancelled is answered, so its reader reads on
    // to the end the cancellation gave the exchange, and nothing waits on it for good.
    this.cancel.onCancel(() => this.answer(CANCELLED));
    this.#done = start((request) => this.#onRequest(request), this.cancel);
    // Read by `next`; a failure nobody waits for (cancelled while held) is not unhandled.
    this.#done.catch(() => {});
  }

  /** Waits for the exchange's result or its next question; `cancel` (this round's) cancels it. */
  async next(cancel: CancelSignal): Promise<Step<T>> {
    const stop = cancel.onCancel(() => this.cancel.cancel());
    try {
      return await new Promise<Step<T>>((resolve, reject) => {
        if (this.#asking) {
          resolve({ kind: 'asks', request: this.#asking.request });
          return;
        }
        this.#heard = (request) => resolve({ kind: 'asks', request });
        this.#done.then((value) => resolve({ kind: 'done', value }), reject);
      });
    } finally {
      this.#heard = undefined;
      stop();
    }
  }

  /**
   * Posts the agent's answer to the question asked, and lets the exchange
   * read on; `capabilities`: what the answering round's client declared (the
   * next question is relayed or refused by them).
   */
  answer(reply: RpcAnswer, capabilities?: ClientCapabilities): void {
    if (capabilities !== undefined) this.#capabilities = capabilities;
    const asking = this.#asking;
    this.#asking = undefined;
    asking?.answer(reply);
  }

  #onRequest(request: RpcRequest): Promise<RpcAnswer> {
    const lacking = isClientRequest(request.method)
      ? missingCapability(this.#capabilities, request)
      : request.method;
    if (lacking !== undefined) {
      return Promise.resolve({ error: refusal(request.method, lacking) });
    }
    if (this.cancel.cancelled) return Promise.resolve(CANCELLED);
    return new Promise((resolve) => {
      this.#asking = { request, answer: resolve };
      this.#heard?.(request);
    });
  }
}

/** What can be held: an exchange's id, and what cancels it once its time runs out. */
export interface Holdable {
  readonly id: string;
  readonly cancel: Cancellation;
}

export interface HeldExchangesOptions {
  /** How long an exchange is held (default ten minutes). */
  holdMs?: number;
  /** Told of each exchange held here no more (taken, expired or cancelled), to forget its record. */
  released?: (id: string) => void;
}

/** The held exchanges of this process, by id, each for a while. */
export class HeldExchanges<X extends Holdable = HeldExchange<unknown>> {
  readonly #held = new Map<string, { exchange: X; timer: NodeJS.Timeout }>();
  readonly #holdMs: number;
  readonly #released: (id: string) => void;

  constructor(options: HeldExchangesOptions = {}) {
    this.#holdMs = options.holdMs ?? DEFAULT_HOLD_MS;
    this.#released = options.released ?? (() => {});
  }

  /** Keeps `exchange` until taken back or its time runs out (then it is cancelled). */
  hold(exchange: X): boolean {
    if (this.#held.size >= MAX_HELD) return false;
    const timer = setTimeout(() => {
      this.#held.delete(exchange.id);
      exchange.cancel.cancel();
      this.#released(exchange.id);
    }, this.#holdMs);
    timer.unref();
    this.#held.set(exchange.id, { exchange, timer });
    return true;
  }

  /**
   * The exchange held under `id`, no longer held; undefined when it is not
   * (expired, or another process's), or when it does not `belong` to the
   * answer that names it: that one stays held, untouched, for its own.
   */
  take(id: string, belongs: (exchange: X) => boolean = () => true): X | undefined {
    const entry = this.#held.get(id);
    if (entry === undefined || !belongs(entry.exchange)) return undefined;
    clearTimeout(entry.timer);
    this.#held.delete(id);
    this.#released(id);
    return entry.exchange;
  }

  /** Whether an exchange is held here under `id`. */
  has(id: string): boolean {
    return this.#held.has(id);
  }

  /** Cancels every held exchange (the gateway closing). */
  cancelAll(): void {
    for (const { exchange, timer } of this.#held.values()) {
      clearTimeout(timer);
      exchange.cancel.cancel();
      this.#released(exchange.id);
    }
    this.#held.clear();
  }

  get size(): number {
    return this.#held.size;
  }

  /** How long an exchange is held. */
  get holdMs(): number {
    return this.#holdMs;
  }
}

/** `lacking`: the capability path the agent's client did not declare, or the method itself when none covers it. */
function refusal(method: string, lacking: string): { code: number; message: string } {
  return {
    code: -32601,
    message:
      lacking === method
        ? `Portcullis does not relay ${method.slice(0, 60)} to the agent`
        : `the calling agent's client did not declare the ${lacking} capability, so Portcullis cannot relay ${method} to it`,
  };
}
