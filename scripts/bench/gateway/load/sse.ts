/**
 * Server-sent events, as much as an MCP client needs: the `data` of each event
 * (multi-line data joined with `\n`); ids, event names and comments ignored.
 */
export class SseParser {
  #buffer = '';
  #data: string[] = [];

  /** Feeds a chunk; returns the data of every event it completed. */
  push(chunk: string): string[] {
    this.#buffer += chunk;
    const events: string[] = [];
    let start = 0;
    for (let newline = this.#buffer.indexOf('\n'); newline >= 0; ) {
      let line = this.#buffer.slice(start, newline);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = newline + 1;
      if (line === '') {
        if (this.#data.length > 0) events.push(this.#data.join('\n'));
        this.#data = [];
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
