/**
 * The total deadline of outbound exchanges: however the reply trickles in,
 * an exchange older than the deadline is ended. One sweep timer per client,
 * running only while some exchange is in flight, checks them all, so a call
 * pays for a set insertion and removal rather than a timer of its own. An
 * exchange ends within a tenth of the deadline (at most a second) after it.
 */

export interface Watched {
  /** `performance.now()` when the exchange started. */
  readonly startedAt: number;
  /** Ends the exchange: its deadline passed. */
  expire(): void;
}

export class Deadlines {
  readonly #deadlineMs: number;
  readonly #sweepMs: number;
  readonly #watched = new Set<Watched>();
  #timer: NodeJS.Timeout | undefined;

  constructor(deadlineMs: number) {
    this.#deadlineMs = deadlineMs;
    this.#sweepMs = Math.max(10, Math.min(1_000, Math.floor(deadlineMs / 10)));
  }

  get deadlineMs(): number {
    return this.#deadlineMs;
  }

  watch(exchange: Watched): void {
    this.#watched.add(exchange);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.#sweepMs);
      this.#timer.unref();
    }
  }

  unwatch(exchange: Watched): void {
    this.#watched.delete(exchange);
  }

  /** Stops the sweep (the client closes). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sweep(): void {
    // Stopping only once a sweep finds nothing keeps a steady stream of calls off timer churn.
    if (this.#watched.size === 0) {
      this.stop();
      return;
    }
    const expired = performance.now() - this.#deadlineMs;
    for (const exchange of this.#watched) {
      if (exchange.startedAt > expired) continue;
      this.#watched.delete(exchange);
      exchange.expire();
    }
  }
}
