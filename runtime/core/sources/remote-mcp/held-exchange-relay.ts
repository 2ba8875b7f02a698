/**
 * Answers to held questions across replicas. A held exchange lives in the
 * memory of the replica that holds it (`held-exchanges.ts`), but a
 * 2026-07-28 agent's retry is stateless, so a load balancer may bring its
 * answer to any replica. Each hold is recorded in the shared state
 * (`held-exchange:<id>` → the holder's replica id, for the hold's time, gone
 * once taken, cancelled or expired); a replica that does not hold the
 * exchange reads the record and sends the answer to the holder on the
 * holder's channel, and the holder does what a local answer does and sends
 * back the next step: the final result, the next question (still held there,
 * under the same id), or the error, with its reason code. The progress and log
 * notifications of the round come back on the same channel before it, in the
 * order the server sent them, for the agent's reply stream.
 *
 * Each replica has one channel, `held-exchange-relay:<replica id>`, for both
 * the answers it is sent and the steps it waits for, subscribed when first
 * needed. The holder checks the exchange's connection against the one the
 * answer came for, as a local answer does. No record, or this replica's own: the
 * question is no longer waiting (`mcp_remote_input_expired`, at once). A
 * holder that never answers (it went away) fails the answer with the same
 * code after `waitMs`, which a live holder's upstream deadline always beats.
 */
import { randomUUID } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { awaitAnswer, Cancellation, type CancelSignal } from '../../base/cancellation.ts';
import { GatewayError, REASONS, type ReasonCode } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { LazySubscription } from '../../ports/shared-state/lazy-subscription.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { ExecuteCall } from '../executor.ts';

/** An agent's answer to a held question, as it goes to the replica holding the exchange. */
export interface RelayedAnswer {
  /** The held exchange's id, and the key its question went out under. */
  exchange: string;
  key: string;
  answer: unknown;
  /** What the agent's client declared in the answering round. */
  capabilities: ClientCapabilities;
  /** The connection the answering call is for: the holder refuses another's. */
  connection: string;
}

export interface HeldExchangeRelayOptions<T> {
  /** How long an answer waits for the holder's step: the upstream deadline. */
  waitMs: number;
  /**
   * What this replica does with an answer another replica brings for an
   * exchange held here; without it every such answer is expired.
   */
  resume?: Resume<T>;
  /** Where failures no caller sees go (a record not written, a malformed message). */
  report?: (error: unknown) => void;
}

/** Where a round's progress and log notifications go: the agent's call. */
export type RoundNotices = Pick<ExecuteCall, 'progress' | 'log'>;

/** One notification of a relayed round, as its arguments. */
type Notice =
  | { progress: Parameters<RoundNotices['progress']> }
  | { log: Parameters<RoundNotices['log']> };

type Message =
  | ({ kind: 'answer'; round: string; from: string } & RelayedAnswer)
  | { kind: 'cancel'; round: string }
  | { kind: 'notice'; round: string; notice: Notice }
  | { kind: 'step'; round: string; value?: unknown; error?: RelayedError };

interface RelayedError {
  code: string;
  message: string;
  detail?: Record<string, unknown>;
}

export class HeldExchangeRelay<T> {
  /** This process's replica id, random at start. */
  readonly replica = randomUUID();
  readonly #state: SharedState;
  readonly #waitMs: number;
  readonly #report: (error: unknown) => void;
  readonly #inbox: LazySubscription;
  /** Answers sent to a holder, waiting for its step, by round. */
  readonly #waiting = new Map<string, (step: Message & { kind: 'step' }) => void>();
  /** Where the notifications of each of those rounds go. */
  readonly #notices = new Map<string, RoundNotices>();
  /** Relayed rounds running here, by round (the asker's agent may cancel one). */
  readonly #rounds = new Map<string, Cancellation>();
  readonly #resume: Resume<T> | undefined;

  constructor(state: SharedState, options: HeldExchangeRelayOptions<T>) {
    this.#state = state;
    this.#waitMs = options.waitMs;
    this.#resume = options.resume;
    this.#report = options.report ?? (() => {});
    this.#inbox = new LazySubscription(state, channelOf(this.replica), (text) =>
      this.#received(text),
    );
  }

  /** Records that this replica holds exchange `id`, for `ttlMs`; a failure only keeps other replicas from answering it. */
  async held(id: string, ttlMs: number): Promise<void> {
    try {
      await this.#inbox.ready();
      await this.#state.set(recordOf(id), this.replica, ttlMs);
    } catch (error) {
      this.#report(error);
    }
  }

  /** Exchange `id` is held here no more (taken, cancelled, expired). */
  released(id: string): void {
    this.#state.compareAndSet(recordOf(id), this.replica, undefined).catch(this.#report);
  }

  /**
   * An answer for an exchange not held here: sent to its holder, the holder's
   * next step back, and the round's notifications to `notices` as they come.
   */
  async resume(answer: RelayedAnswer, cancel: CancelSignal, notices: RoundNotices): Promise<T> {
    const holder = await this.#state.get(recordOf(answer.exchange));
    if (holder === undefined || holder === this.replica)
      throw new GatewayError('mcp_remote_input_expired');
    await this.#inbox.ready();
    const round = randomUUID();
    return awaitAnswer<T>({
      cancel,
      timeoutMs: this.#waitMs,
      timeout: () =>
        new GatewayError(
          'mcp_remote_input_expired',
          'the replica holding the question did not answer',
        ),
      done: () => {
        this.#waiting.delete(round);
        this.#notices.delete(round);
      },
      onCancel: () => this.#send(holder, { kind: 'cancel', round }),
      listen: (resolve, reject) => {
        this.#waiting.set(round, (step) =>
          step.error ? reject(errorOf(step.error)) : resolve(step.value as T),
        );
        this.#notices.set(round, notices);
        const message: Message = { kind: 'answer', round, from: this.replica, ...answer };
        this.#state.publish(channelOf(holder), JSON.stringify(message)).catch(reject);
      },
    });
  }

  /** Stops listening; answers still waiting here fail as expired. */
  close(): void {
    this.#inbox.close(this.#report);
    for (const round of [...this.#rounds.values()]) round.cancel();
    for (const settle of [...this.#waiting.values()])
      settle({ kind: 'step', round: '', error: { code: 'mcp_remote_input_expired', message: '' } });
  }

  #received(text: string): void {
    const message = messageOf(text);
    if (message === undefined) {
      this.#report(new TypeError('a held-exchange relay message is malformed'));
      return;
    }
    if (message.kind === 'step') this.#waiting.get(message.round)?.(message);
    else if (message.kind === 'notice') noticeTo(this.#notices.get(message.round), message.notice);
    else if (message.kind === 'cancel') this.#rounds.get(message.round)?.cancel();
    else this.#answered(message);
  }

  /** An answer brought to another replica for an exchange held here: answered here, the step sent back. */
  #answered(message: Message & { kind: 'answer' }): void {
    const { round, from, exchange, key, answer, capabilities, connection } = message;
    const cancel = new Cancellation();
    this.#rounds.set(round, cancel);
    const resume = this.#resume;
    const notice = (notice: Notice) => this.#send(from, { kind: 'notice', round, notice });
    const notices: RoundNotices = {
      progress: (...progress) => notice({ progress }),
      log: (...log) => notice({ log }),
    };
    const running = resume
      ? Promise.resolve().then(() =>
          resume({ exchange, key, answer, capabilities, connection }, cancel, notices),
        )
      : Promise.reject(new GatewayError('mcp_remote_input_expired'));
    running
      .then(
        (value): Message => ({ kind: 'step', round, value }),
        (error: unknown): Message => ({ kind: 'step', round, error: relayedErrorOf(error) }),
      )
      .then((step) => {
        this.#rounds.delete(round);
        this.#send(from, step);
      });
  }

  #send(replica: string, message: Message): void {
    this.#state.publish(channelOf(replica), JSON.stringify(message)).catch(this.#report);
  }
}

/** What the holder does with an answer brought for an exchange it holds. */
export type Resume<T> = (
  answer: RelayedAnswer,
  cancel: CancelSignal,
  notices: RoundNotices,
) => Promise<T>;

/** A relayed notification, given to the round's call (a malformed one is dropped). */
function noticeTo(notices: RoundNotices | undefined, notice: Notice): void {
  if (notices === undefined) return;
  if ('progress' in notice && Array.isArray(notice.progress)) {
    const [progress, total, message] = notice.progress;
    if (typeof progress === 'number')
      notices.progress(progress, total ?? undefined, message ?? undefined);
  } else if ('log' in notice && Array.isArray(notice.log)) {
    const [level, data, logger] = notice.log;
    if (typeof level === 'string') notices.log(level, data, logger ?? undefined);
  }
}

function recordOf(id: string): string {
  return `held-exchange:${id}`;
}

function channelOf(replica: string): string {
  return `held-exchange-relay:${replica}`;
}

/** The holder's error, as the replica that asked throws it: its reason code kept, anything else `internal`. */
function relayedErrorOf(error: unknown): RelayedError {
  if (!(error instanceof GatewayError)) return { code: 'internal', message: 'internal error' };
  return {
    code: error.code,
    message: error.message,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
  };
}

function errorOf(error: RelayedError): GatewayError {
  const code: ReasonCode = Object.hasOwn(REASONS, error.code)
    ? (error.code as ReasonCode)
    : 'internal';
  return new GatewayError(code, error.message || undefined, {
    ...(error.detail === undefined ? {} : { detail: error.detail }),
  });
}

function messageOf(text: string): Message | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(message) || typeof message.round !== 'string') return undefined;
  if (message.kind === 'step' || message.kind === 'cancel') return message as Message;
  if (message.kind === 'notice' && isPlainObject(message.notice)) return message as Message;
  if (
    message.kind === 'answer' &&
    typeof message.from === 'string' &&
    typeof message.exchange === 'string' &&
    typeof message.key === 'string' &&
    typeof message.connection === 'string' &&
    isPlainObject(message.capabilities)
  )
    return message as Message;
  return undefined;
}
