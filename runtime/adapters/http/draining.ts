/**
 * The HTTP server's part of a graceful stop (SIGTERM, SIGINT). `drain`
 * stops listening, and from then on:
 *
 * - a new request, on any path, is refused at once: 503 `endpoint_closed` in
 *   the one error shape, `Connection: close` and `Retry-After`, so a load
 *   balancer or a client retries on another replica;
 * - the requests under way run to their end and answer; each connection
 *   closes once it has no request left (kept-alive connections do not linger
 *   for their idle timeout);
 * - at the deadline, the connections still open are cut off.
 *
 * It answers whether everything under way had answered in time.
 */
import type { RequestListener, Server, ServerResponse } from 'node:http';
import { GatewayError, publicError } from '../../core/base/errors.ts';

export class Draining {
  readonly #server: Server;
  readonly #underWay = new Set<ServerResponse>();
  #draining = false;

  constructor(server: Server) {
    this.#server = server;
  }

  /** `listener`, with the requests it serves counted and new ones refused while draining. */
  serve(listener: RequestListener): RequestListener {
    return (req, res) => {
      if (this.#draining) {
        refuse(res);
        return;
      }
      this.#underWay.add(res);
      res.once('close', () => {
        this.#underWay.delete(res);
        // Its connection is idle once the reply has gone: closed rather than kept alive.
        if (this.#draining) setImmediate(() => this.#server.closeIdleConnections());
      });
      listener(req, res);
    };
  }

  /** Stops listening and lets what is under way answer, for `deadlineMs` at most. */
  async drain(deadlineMs: number): Promise<{ inTime: boolean }> {
    this.#draining = true;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const res of this.#underWay) if (!res.headersSent) res.setHeader('Connection', 'close');
    this.#server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
    });
    const inTime = await Promise.race([closed.then(() => true), late]);
    clearTimeout(timer);
    if (!inTime) {
      this.#server.closeAllConnections();
      await closed;
    }
    return { inTime };
  }
}

function refuse(res: ServerResponse): void {
  res.writeHead(503, {
    'Content-Type': 'application/json',
    Connection: 'close',
    'Retry-After': '1',
  });
  res.end(JSON.stringify({ error: publicError(new GatewayError('endpoint_closed')) }));
}
