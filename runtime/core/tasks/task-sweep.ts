/**
 * Deletes the recorded tasks that expired, every few minutes: no poll finds
 * them past `expiresAt` anyway (the store's reads say so), this only keeps
 * the table small. Each replica sweeps; a delete that finds nothing costs a
 * range scan of an index.
 */
export interface TaskSweepOptions {
  prune(): Promise<number>;
  /** Told about a failed sweep (the operator's log); the next one tries again. */
  report?: (error: unknown) => void;
  /** Default five minutes. */
  everyMs?: number;
}

export class TaskSweep {
  readonly #options: TaskSweepOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: TaskSweepOptions) {
    this.#options = options;
  }

  start(): void {
    this.#timer ??= setInterval(() => {
      this.#sweeping ??= this.sweep().finally(() => {
        this.#sweeping = undefined;
      });
    }, this.#options.everyMs ?? 300_000);
    this.#timer.unref();
  }

  /** One sweep now. */
  async sweep(): Promise<void> {
    await this.#options.prune().catch((error: unknown) => this.#options.report?.(error));
  }

  /** Stops sweeping, once a sweep under way is done. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }
}
