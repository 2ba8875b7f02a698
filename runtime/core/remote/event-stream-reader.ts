/**
 * Server-sent events read as they arrive: text in, the `data` of each event
 * that is complete so far out (events end at a blank line, CRLF, LF or CR).
 */
import { eventData } from './mcp-reply.ts';

export class EventStreamReader {
  readonly #decoder = new TextDecoder('utf-8');
  #pending = '';

  /** The complete events in what arrived so far. */
  push(chunk: Uint8Array): string[] {
    this.#pending += this.#decoder.decode(chunk, { stream: true });
    const events: string[] = [];
    for (;;) {
      const end = /\r\n\r\n|\n\n|\r\r/.exec(this.#pending);
      if (end === null) return events;
      const block = this.#pending.slice(0, end.index);
      this.#pending = this.#pending.slice(end.index + end[0].length);
      events.push(...eventData(`${block}\n\n`));
    }
  }

  /** What is left when the stream ends (an event without its blank line still counts). */
  end(): string[] {
    const rest = this.#pending + this.#decoder.decode();
    this.#pending = '';
    return rest.trim() === '' ? [] : eventData(rest);
  }
}
