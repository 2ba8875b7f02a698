/**
 * One request whose reply body is read as it arrives (an MCP event stream:
 * progress before the result, a server's request mid-call), under the same
 * rules as a buffered exchange: the byte cap counts every chunk, the whole
 * exchange ends by its deadline, and the reply by its longest pause between
 * chunks (the reply timeout). Both are timers of their own, not undici's, so
 * that `pause` can stop them: while the server waits on someone else (an
 * agent answering its question), the time is not the server's.
 */
import type { Dispatcher } from 'undici';
import type { GatewayError } from '../base/errors.ts';
import {
  classifyFailure,
  deadlineExceeded,
  type FailureContext,
  replyTimedOut,
  replyTooLarge,
} from './outbound-errors.ts';
import { PausableTimer } from './pausable-timer.ts';
import { flatHeaders } from './reply-headers.ts';

export interface StreamedReply {
  status: number;
  /** Lowercase names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body's chunks as they arrive; ends with the body, or throws the exchange's error. */
  chunks: AsyncIterable<Buffer>;
  /** Stops reading: the request is aborted, nothing more arrives. */
  close(): void;
  /**
   * Stops the deadline and the reply timeout until the returned function is
   * called (once; later calls do nothing): for a server that waits on an
   * answer from someone else. Time paused does not count against either.
   */
  pause(): () => void;
}

export class StreamedExchange implements Dispatcher.DispatchHandler {
  readonly #limit: number;
  readonly #deadlineMs: number;
  readonly #idleMs: number;
  readonly #context: FailureContext;
  readonly #onHead: (reply: StreamedReply) => void;
  readonly #onFail: (error: Error) => void;
  readonly #onSettled: () => void;
  readonly #deadline: PausableTimer;
  /** The reply timeout, from the head on: started over by every chunk. */
  #idle: PausableTimer | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #pendingAbort: Error | undefined;
  #headSent = false;
  #ended = false;
  #error: Error | undefined;
  #bytes = 0;
  readonly #queue: Buffer[] = [];
  #wake: (() => void) | undefined;

  constructor(
    limit: number,
    context: FailureContext,
    timeouts: { deadlineMs: number; idleMs: number },
    onHead: (reply: StreamedReply) => void,
    onFail: (error: Error) => void,
    /** Once, when the reply has ended or the exchange failed (a failure before the head included). */
    onSettled: () => void = () => {},
  ) {
    this.#limit = limit;
    this.#context = context;
    this.#deadlineMs = timeouts.deadlineMs;
    this.#idleMs = timeouts.idleMs;
    this.#onHead = onHead;
    this.#onFail = onFail;
    this.#onSettled = onSettled;
    this.#deadline = new PausableTimer(timeouts.deadlineMs, () => this.#expire());
  }

  abort(error: Error): void {
    this.#fail(error);
    if (this.#controller) this.#controller.abort(error);
    else this.#pendingAbort = error;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    this.#context.requestSent = true;
    if (this.#pendingAbort) controller.abort(this.#pendingAbort);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#controller = controller;
    const flat = flatHeaders(headers);
    const declared = Number(flat['content-length']);
    if (Number.isFinite(declared) && declared > this.#limit) {
      this.abort(this.#tooLarge());
      return;
    }
    this.#headSent = true;
    this.#idle = new PausableTimer(this.#idleMs, () => this.#idleTooLong());
    this.#onHead({
      status: statusCode,
      headers: flat,
      chunks: this.#chunks(),
      close: () => this.#close(),
      pause: () => this.#pause(),
    });
  }

  #pause(): () => void {
    const resumes = [this.#deadline.pause(), this.#idle?.pause()];
    return () => {
      for (const resume of resumes) resume?.();
    };
  }

  /** The reader is done: a reply still arriving is aborted; one that has ended needs nothing. */
  #close(): void {
    if (this.#ended || this.#error) return;
    this.abort(new Error('closed by the reader'));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#ended || this.#error) return;
    this.#bytes += chunk.length;
    if (this.#bytes > this.#limit) {
      this.abort(this.#tooLarge());
      return;
    }
    this.#queue.push(chunk);
    this.#idle?.restart();
    this.#wake?.();
  }

  onResponseEnd(): void {
    if (this.#ended || this.#error) return;
    this.#ended = true;
    this.#clearClocks();
    this.#onSettled();
    this.#wake?.();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.#fail(classifyFailure(error, this.#context));
  }

  async *#chunks(): AsyncGenerator<Buffer> {
    for (;;) {
      const next = this.#queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#error) throw this.#error;
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  #fail(error: Error): void {
    if (this.#ended || this.#error) return;
    this.#error = error;
    this.#clearClocks();
    this.#onSettled();
    this.#queue.length = 0;
    if (this.#headSent) this.#wake?.();
    else this.#onFail(error);
  }

  #clearClocks(): void {
    this.#deadline.clear();
    this.#idle?.clear();
  }

  #expire(): void {
    this.abort(deadlineExceeded(this.#context, this.#deadlineMs));
  }

  #idleTooLong(): void {
    this.abort(replyTimedOut(this.#context));
  }

  #tooLarge(): GatewayError {
    return replyTooLarge(this.#context, this.#limit);
  }
}
