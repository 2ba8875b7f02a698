/**
 * A channel subscription made when first needed and shared by everyone who
 * needs it. One that fails (the shared state was down) is not kept: the next
 * need tries again, so a replica recovers when the state does.
 */
import type { MessageListener, SharedState, Subscription } from './shared-state.ts';

export class LazySubscription {
  readonly #state: SharedState;
  readonly #channel: string;
  readonly #listener: MessageListener;
  #pending: Promise<Subscription> | undefined;

  constructor(state: SharedState, channel: string, listener: MessageListener) {
    this.#state = state;
    this.#channel = channel;
    this.#listener = listener;
  }

  /** The subscription, made now when there is none (or the last attempt failed). */
  ready(): Promise<Subscription> {
    if (this.#pending === undefined) {
      const pending = this.#state.subscribe(this.#channel, this.#listener);
      this.#pending = pending;
      pending.catch(() => {
        if (this.#pending === pending) this.#pending = undefined;
      });
    }
    return this.#pending;
  }

  /** Unsubscribes, if subscribed; a failure goes to `report`. */
  close(report: (error: unknown) => void): void {
    const pending = this.#pending;
    this.#pending = undefined;
    void pending?.then((subscription) => subscription.unsubscribe()).catch(report);
  }
}
