/**
 * A reply that streams: Server-Sent Events carrying JSON-RPC messages, written
 * as they come. The endpoint writes to it; the HTTP adapter attaches a writer
 * once the headers are out (anything sent before is buffered) and says when
 * the client went away.
 */
import { commentEvent, messageEvent } from './event-stream-codec.ts';

export interface StreamWriter {
  write(chunk: string): void;
  end(): void;
}

export class EventStream {
  #writer: StreamWriter | undefined;
  #buffer = '';
  #ended = false;
  #closed = false;
  #onClose: (() => void)[] = [];

  /** Ended by us, or gone at the client's end: nothing more is written. */
  get closed(): boolean {
    return this.#ended || this.#closed;
  }

  /** One JSON-RPC message as one `message` event. */
  send(message: unknown): void {
    this.#write(messageEvent(message));
  }

  /** An SSE comment: a keep-alive that clients ignore. */
  comment(text = ''): void {
    this.#write(commentEvent(text));
  }

  end(): void {
    if (this.closed) return;
    this.#ended = true;
    if (this.#writer) this.#writer.end();
    this.#fireClose();
  }

  /** Called by the adapter when the stream's headers are written. */
  attach(writer: StreamWriter): void {
    this.#writer = writer;
    if (this.#buffer !== '') {
      writer.write(this.#buffer);
      this.#buffer = '';
    }
    if (this.#ended) writer.end();
  }

  /** Called by the adapter when the connection closed before the stream ended. */
  lost(): void {
    if (this.closed) return;
    this.#closed = true;
    this.#fireClose();
  }

  /** Runs `listener` once when the stream ends either way (at once if it has). */
  onClose(listener: () => void): () => void {
    if (this.closed) {
      listener();
      return () => {};
    }
    this.#onClose.push(listener);
    return () => {
      this.#onClose = this.#onClose.filter((l) => l !== listener);
    };
  }

  #write(chunk: string): void {
    if (this.closed) return;
    if (this.#writer) this.#writer.write(chunk);
    else this.#buffer += chunk;
  }

  #fireClose(): void {
    const listeners = this.#onClose;
    this.#onClose = [];
    for (const listener of listeners) listener();
  }
}
