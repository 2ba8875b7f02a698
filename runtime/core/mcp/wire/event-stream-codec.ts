/**
 * Server-sent events (WHATWG HTML, "Server-sent events") as MCP uses them,
 * both ways: the endpoint encodes each JSON-RPC message as one `message`
 * event; the forwarding client decodes a remote server's stream as it
 * arrives (lines end at CRLF, LF or CR; an event ends at a blank line; its
 * `data` lines are joined by LF; an event with empty data carries nothing
 * and is skipped, such as the priming event a 2025-11-25 server sends first,
 * an id for resuming).
 */
import { mediaTypeEssence } from '../../../../generated/catalog-rules.ts';
import { stringifyMessage } from './json-text.ts';

/** The media type of an event stream. */
export const EVENT_STREAM_TYPE = 'text/event-stream';

/** Whether a `Content-Type` names an event stream (parameters and case aside). */
export function isEventStreamType(contentType: string | undefined): boolean {
  return mediaTypeEssence(contentType ?? '') === EVENT_STREAM_TYPE;
}

/** One JSON-RPC message as one `message` event. */
export function messageEvent(message: unknown): string {
  return `event: message\ndata: ${stringifyMessage(message)}\n\n`;
}

/** An SSE comment: a keep-alive that clients ignore. */
export function commentEvent(text = ''): string {
  return `: ${text}\n\n`;
}

/** One event read: its name (`''` when unnamed) and its data. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/** Reads an event stream as it arrives: bytes in, the events complete so far out. */
export class EventStreamReader {
  readonly #decoder = new TextDecoder('utf-8');
  /** Text after the last complete line. */
  #line = '';
  /** The last chunk ended with CR: an LF starting the next one belongs to it. */
  #afterCr = false;
  #event = '';
  #data: string[] = [];

  /** The events completed by `chunk`. */
  push(chunk: Uint8Array | string): ServerSentEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    return this.#read(text);
  }

  /** What is left when the stream ends (an event without its blank line still counts). */
  end(): ServerSentEvent[] {
    const events = this.#read(this.#decoder.decode());
    if (this.#line !== '') this.#field(this.#line);
    this.#line = '';
    this.#dispatch(events);
    return events;
  }

  #read(text: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let start = 0;
    if (this.#afterCr && text.startsWith('\n')) start = 1;
    if (text !== '') this.#afterCr = false;
    for (let at = start; at < text.length; at++) {
      const char = text.charCodeAt(at);
      if (char !== 10 && char !== 13) continue;
      const line = this.#line + text.slice(start, at);
      this.#line = '';
      if (char === 13) {
        if (at + 1 === text.length) this.#afterCr = true;
        else if (text.charCodeAt(at + 1) === 10) at++;
      }
      start = at + 1;
      if (line === '') this.#dispatch(events);
      else this.#field(line);
    }
    this.#line += text.slice(start);
    return events;
  }

  #field(line: string): void {
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
  }

  #dispatch(events: ServerSentEvent[]): void {
    const data = this.#data.join('\n');
    if (data !== '') events.push({ event: this.#event, data });
    this.#event = '';
    this.#data = [];
  }
}

/** The `data` of each event in a whole stream's text. */
export function eventData(text: string): string[] {
  const reader = new EventStreamReader();
  return [...reader.push(text), ...reader.end()].map((event) => event.data);
}
