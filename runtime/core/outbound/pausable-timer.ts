/**
 * A one-shot timer that can stop and go on: while paused, time does not count
 * toward it. For the clocks of an exchange whose server waits on someone else
 * (an agent answering the server's question): that wait is not the server's.
 */
export class PausableTimer {
  readonly #ms: number;
  readonly #fire: () => void;
  /** Time left when paused; when running, the `performance.now()` at which it fires. */
  #mark: number;
  #timer: NodeJS.Timeout | undefined;
  /** What the running timer was set for (`refresh` sets it for that again). */
  #armedMs = 0;
  #pauses = 0;
  #over = false;

  constructor(ms: number, fire: () => void) {
    this.#ms = ms;
    this.#fire = fire;
    this.#mark = performance.now() + ms;
    this.#timer = this.#arm(ms);
  }

  /**
   * Stops the clock until the returned function is called (once; later calls
   * do nothing). Pauses nest: the clock goes on when the last one ends.
   */
  pause(): () => void {
    if (this.#over) return () => {};
    if (this.#pauses++ === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#mark = Math.max(0, this.#mark - performance.now());
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.#pauses > 0 || this.#over) return;
      this.#timer = this.#arm(this.#mark);
      this.#mark += performance.now();
    };
  }

  /** Starts the whole time over (another chunk arrived); a paused timer starts it over when resumed. */
  restart(): void {
    if (this.#over) return;
    if (this.#pauses > 0) {
      this.#mark = this.#ms;
      return;
    }
    this.#mark = performance.now() + this.#ms;
    if (this.#armedMs === this.#ms) this.#timer?.refresh();
    else {
      clearTimeout(this.#timer);
      this.#timer = this.#arm(this.#ms);
    }
  }

  /** Stops it for good. */
  clear(): void {
    this.#over = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): NodeJS.Timeout {
    this.#armedMs = ms;
    return setTimeout(() => {
      this.#over = true;
      this.#timer = undefined;
      this.#fire();
    }, ms).unref();
  }
}
