/**
 * Requests the server sends a legacy client (2025-11-25 and earlier:
 * `elicitation/create`, `sampling/createMessage`, `roots/list`) on the reply
 * stream of the call that needs them, and the client's answers, which arrive
 * as JSON-RPC responses in later POSTs of the same session. An answer that
 * never comes is given up after a while; a call cancelled meanwhile stops
 * waiting at once.
 */
import { randomUUID } from 'node:crypto';
import type { InputRequest } from '@modelcontextprotocol/server';
import { awaitAnswer, type CancelSignal } from '../../base/cancellation.ts';
import { GatewayError } from '../../base/errors.ts';
import { type JsonRpcId, requestMessage } from '../wire/json-rpc.ts';
import type { PendingReply } from './pending-reply.ts';

interface Waiting {
  resolve(answer: unknown): void;
}

export interface ClientRequestsOptions {
  /** How long an answer may take (a person may be filling in a form). Default 10 minutes. */
  answerTimeoutMs?: number;
}

const DEFAULT_ANSWER_TIMEOUT_MS = 10 * 60_000;

export class ClientRequests {
  readonly #waiting = new Map<string, Waiting>();
  readonly #timeoutMs: number;

  constructor(options: ClientRequestsOptions = {}) {
    this.#timeoutMs = options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
  }

  /**
   * Sends each request on `reply` (turning it into a stream) and resolves with
   * the client's answers by key: a result, or `{ error }` when the client
   * answered with an error.
   */
  async ask(
    sessionId: string,
    reply: PendingReply,
    requests: Record<string, InputRequest>,
    cancel: CancelSignal,
  ): Promise<Record<string, unknown>> {
    const keys = Object.keys(requests);
    const answers = await Promise.all(
      keys.map((key) => this.#askOne(sessionId, reply, requests[key]!, cancel)),
    );
    return Object.fromEntries(keys.map((key, at) => [key, answers[at]]));
  }

  /** A response a client posted: true when a request of this session was waiting for it. */
  deliver(
    sessionId: string,
    id: JsonRpcId,
    answer: { result?: unknown; error?: unknown },
  ): boolean {
    const waiting = this.#waiting.get(waitKey(sessionId, id));
    if (waiting === undefined) return false;
    waiting.resolve(answer.error === undefined ? answer.result : { error: answer.error });
    return true;
  }

  get size(): number {
    return this.#waiting.size;
  }

  #askOne(
    sessionId: string,
    reply: PendingReply,
    request: InputRequest,
    cancel: CancelSignal,
  ): Promise<unknown> {
    // Unique across replicas: two of them may ask on one session.
    const id = `portcullis-${randomUUID()}`;
    const key = waitKey(sessionId, id);
    return awaitAnswer({
      cancel,
      timeoutMs: this.#timeoutMs,
      timeout: () =>
        new GatewayError('upstream_timeout', `the client did not answer ${request.method} in time`),
      done: () => this.#waiting.delete(key),
      listen: (answer, fail) => {
        this.#waiting.set(key, { resolve: answer });
        const sent = reply.send(requestMessage(id, request.method, request.params ?? {}));
        if (sent === undefined)
          fail(new GatewayError('internal', 'the reply ended before the client could be asked'));
      },
    });
  }
}

function waitKey(sessionId: string, id: JsonRpcId): string {
  return `${sessionId}\0${typeof id}:${id}`;
}
