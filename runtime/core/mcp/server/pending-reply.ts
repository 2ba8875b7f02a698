/**
 * The answer to one POST while it is being worked out. Most requests end with
 * their result before anything else happens, and are answered with one JSON
 * write, as fast as ever. A request that has something to say before its
 * result (a progress notification, a log message, a request to the client)
 * turns the reply into an event stream at that moment: what was said goes
 * first, the result last, then the stream ends.
 */
import { EventStream } from '../wire/event-stream.ts';
import type { McpHttpResponse, ReplyFormat } from '../wire/http-exchange.ts';
import { messagesReply, SSE_HEADERS } from '../wire/http-exchange.ts';
import type { OutgoingMessage } from '../wire/json-rpc.ts';

/**
 * A refusal the client can step up from: answered as HTTP 403 with
 * `challenge` in `WWW-Authenticate` and `refusal` as the body, unless the
 * reply is already a stream.
 */
export interface StepUp {
  challenge: string;
  refusal: OutgoingMessage;
}

export class PendingReply {
  readonly response: Promise<McpHttpResponse>;
  readonly #format: ReplyFormat;
  readonly #headers: Record<string, string>;
  #resolve!: (response: McpHttpResponse) => void;
  #stream: EventStream | undefined;
  #done = false;

  /** `headers`: what every form of the reply carries (the session id). */
  constructor(format: ReplyFormat, headers: Record<string, string> = {}) {
    this.#format = format;
    this.#headers = headers;
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** A message before the result (a notification, or a request to the client): starts the stream. */
  send(message: unknown): EventStream | undefined {
    if (this.#done) return undefined;
    const stream = this.#streaming();
    stream.send(message);
    return stream;
  }

  /** The result (or the batch's results): the end of the reply. */
  finish(messages: OutgoingMessage | OutgoingMessage[], status = 200): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#stream === undefined) {
      this.#resolve(messagesReply(messages, this.#format, this.#headers, status));
      return;
    }
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      this.#stream.send(message);
    }
    this.#stream.end();
  }

  /**
   * An answer, ended the way its kind says: a step-up refusal is HTTP 403
   * with its `WWW-Authenticate` challenge while nothing was streamed yet (a
   * started stream ends with the answer's message, as any result).
   */
  settle(answer: { message: OutgoingMessage; stepUp?: StepUp }, status = 200): void {
    if (answer.stepUp === undefined || this.#stream !== undefined) {
      this.finish(answer.message, status);
      return;
    }
    if (this.#done) return;
    this.#done = true;
    const headers = { ...this.#headers, 'WWW-Authenticate': answer.stepUp.challenge };
    this.#resolve(messagesReply(answer.stepUp.refusal, 'json', headers, 403));
  }

  #streaming(): EventStream {
    if (this.#stream === undefined) {
      this.#stream = new EventStream();
      this.#resolve({
        status: 200,
        headers: { ...SSE_HEADERS, ...this.#headers },
        stream: this.#stream,
      });
    }
    return this.#stream;
  }
}
