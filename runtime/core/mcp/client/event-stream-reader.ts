/**
 * Server-sent events read as they arrive: text in, the `data` of each event
 * that is complete so far out (events end at a blank line, CRLF, LF or CR).
 */
import { eventData } from './mcp-reply.ts';

export class EventStreamReader {
  readonly #decoder = new TextDecoder('utf-8');
  #pending = '';

  /** The complete events in what arrived so far, with their names (`''` when unnamed). */
  pushEvents(chunk: Uint8Array): Array<{ event: string; data: string }> {
    this.#pending += this.#decoder.decode(chunk, { stream: true });
    const events: Array<{ event: string; data: string }> = [];
    for (;;) {
      const end = /\r\n\r\n|\n\n|\r\r/.exec(this.#pending);
      if (end === null) return events;
      const block = this.#pending.slice(0, end.index);
      this.#pending = this.#pending.slice(end.index + end[0].length);
      const lines = block.split(/\r\n|\r|\n/);
      const named = lines.find((line) => line.startsWith('event:'));
      const data = eventData(`${block}\n\n`);
      const event = named === undefined ? '' : named.slice(6).trim();
      if (data.length > 0) events.push({ event, data: data.join('\n') });
      else if (event !== '') events.push({ event, data: '' });
    }
  }

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
