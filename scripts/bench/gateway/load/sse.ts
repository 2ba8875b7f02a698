/**
 * Server-sent events, as much as an MCP client needs: the `data` of each event
 * (multi-line data joined with `\n`) and its name (`message` when it has
 * none); ids and comments ignored.
 */
export interface SseEvent {
  event: string;
  data: string;
}

export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = 'message';

  /** Feeds a chunk; returns the data of every event it completed. */
  push(chunk: string): string[] {
    return this.pushEvents(chunk).map((event) => event.data);
  }

  /** Feeds a chunk; returns every event it completed, with its name. */
  pushEvents(chunk: string): SseEvent[] {
    this.#buffer += chunk;
    const events: SseEvent[] = [];
    let start = 0;
    for (let newline = this.#buffer.indexOf('\n'); newline >= 0; ) {
      let line = this.#buffer.slice(start, newline);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = newline + 1;
      if (line === '') {
        if (this.#data.length > 0) events.push({ event: this.#event, data: this.#data.join('\n') });
        this.#data = [];
        this.#event = 'message';
      } else if (line.startsWith('event:')) {
        this.#event = line.slice(line.startsWith('event: ') ? 7 : 6);
      } else if (line.startsWith('data:')) {
        this.#data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      newline = this.#buffer.indexOf('\n', start);
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  /** The stream ended: its last event counts even without the closing blank line. */
  end(): string[] {
    return this.push(this.#buffer === '' ? '\n' : '\n\n');
  }
}

/** Every event of a complete body. */
export function sseEvents(text: string): string[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}
