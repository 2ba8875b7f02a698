/**
 * Cancelling a running call: its client cancels it, goes away, or ends its
 * session. The standard AbortSignal would do the job, but on Node 20 adding
 * and removing one listener costs about 3 µs (EventTarget), a noticeable share
 * of a whole governed call; a call has one listener at a time, so a plain list
 * serves.
 */
import { GatewayError } from './errors.ts';

export interface CancelSignal {
  readonly cancelled: boolean;
  /** Calls `listener` once when cancelled (at once if it already is); returns what takes it back. */
  onCancel(listener: () => void): () => void;
}

/** The signal of what nobody can cancel (an operator's read, a list no client waits on). */
export const NEVER_CANCELLED: CancelSignal = { cancelled: false, onCancel: () => () => {} };

export class Cancellation implements CancelSignal {
  #cancelled = false;
  #listeners: (() => void)[] = [];

  get cancelled(): boolean {
    return this.#cancelled;
  }

  onCancel(listener: () => void): () => void {
    if (this.#cancelled) {
      listener();
      return () => {};
    }
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
  }

  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** The error of a call its client cancelled while it waited. */
export function cancelledError(): GatewayError {
  return new GatewayError('upstream_timeout', 'the call was cancelled', {
    detail: { cause: 'aborted' },
  });
}

export interface AwaitAnswerOptions<T> {
  cancel: CancelSignal;
  timeoutMs: number;
  /** The error the wait fails with when no answer came in time. */
  timeout: () => Error;
  /** Registers the wait and asks: `answer` settles it with the answer, `fail` with an error. */
  listen: (answer: (value: T) => void, fail: (error: unknown) => void) => void;
  /** Runs once when the wait ends, however it ends (unregister it there). */
  done: () => void;
  /** Runs first when the call is cancelled (tell whoever was asked). */
  onCancel?: () => void;
}

/**
 * Waits for an answer that arrives by callback (a client's response, another
 * replica's message): until it comes, `timeoutMs` passes, or the call is
 * cancelled (`cancelledError`).
 */
export function awaitAnswer<T>(options: AwaitAnswerOptions<T>): Promise<T> {
  const { cancel } = options;
  return new Promise<T>((resolve, reject) => {
    if (cancel.cancelled) {
      reject(cancelledError());
      return;
    }
    let ended = false;
    let stopCancel = () => {};
    const finish = (settle: () => void) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      stopCancel();
      options.done();
      settle();
    };
    const timer = setTimeout(() => finish(() => reject(options.timeout())), options.timeoutMs);
    timer.unref();
    stopCancel = cancel.onCancel(() => {
      options.onCancel?.();
      finish(() => reject(cancelledError()));
    });
    options.listen(
      (value) => finish(() => resolve(value)),
      (error) => finish(() => reject(error)),
    );
  });
}
