/** The corpus run's progress on stderr: done/total, operations so far, failures, elapsed time. */
import { type CorpusSummary, formatDuration } from './corpus-summary.ts';

/** Progress on stderr: a line rewritten in place on a terminal, a line every 15 s otherwise. */
export class Progress {
  readonly #total: number;
  readonly #summary: CorpusSummary;
  readonly #started = performance.now();
  readonly #running = new Map<string, number>();
  readonly #tty = process.stderr.isTTY === true;
  readonly #timer: NodeJS.Timeout;

  constructor(total: number, summary: CorpusSummary) {
    this.#total = total;
    this.#summary = summary;
    this.#timer = setInterval(() => this.#print(), this.#tty ? 500 : 15_000);
    this.#timer.unref();
  }

  start(file: string): void {
    this.#running.set(file, performance.now());
  }

  finish(file: string): void {
    this.#running.delete(file);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#print();
    if (this.#tty) process.stderr.write('\n');
  }

  #print(): void {
    const now = performance.now();
    const done = this.#summary.documents;
    const oldest = [...this.#running].sort(([, a], [, b]) => a - b)[0];
    const line = [
      `corpus ${done}/${this.#total} (${Math.floor((100 * done) / this.#total)}%)`,
      `${this.#summary.operations.toLocaleString('en-US')} operations`,
      `${this.#summary.crashes.length} crashes`,
      `${this.#summary.unfinished.length} unfinished`,
      `${this.#summary.schemasFailed} ajv failures`,
      formatDuration(now - this.#started),
      ...(oldest ? [`longest running: ${oldest[0]} (${formatDuration(now - oldest[1])})`] : []),
    ].join(' · ');
    process.stderr.write(this.#tty ? `\r\x1b[2K${line}` : `${line}\n`);
  }
}
