/**
 * Cancelling a running call: its client cancels it, goes away, or ends its
 * session. The standard AbortSignal would do the job, but on Node 20 adding
 * and removing one listener costs about 3 µs (EventTarget), a noticeable share
 * of a whole governed call; a call has one listener at a time, so a plain list
 * serves.
 */
export interface CancelSignal {
  readonly cancelled: boolean;
  /** Calls `listener` once when cancelled (at once if it already is); returns what takes it back. */
  onCancel(listener: () => void): () => void;
}

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
