/**
 * A request listener made on the first request it gets, not at start: what
 * only some requests need (the Express app and its packages) costs a start
 * nothing. Requests that arrive while it is being made wait for it; a failure
 * to make it answers those requests 500 and the next request tries again.
 */
import type { RequestListener } from 'node:http';
import { publicError, statusOf } from '../../core/base/errors.ts';

export function lazyListener(
  make: () => Promise<RequestListener>,
  onError: (error: unknown) => void,
): RequestListener {
  let made: RequestListener | undefined;
  let making: Promise<RequestListener> | undefined;
  return (req, res) => {
    if (made !== undefined) {
      made(req, res);
      return;
    }
    making ??= make().then(
      (listener) => {
        made = listener;
        return listener;
      },
      (error: unknown) => {
        making = undefined;
        throw error;
      },
    );
    making.then(
      (listener) => listener(req, res),
      (error: unknown) => {
        onError(error);
        // An internal error: the one shape, its message the table's (the cause is the log's).
        const body = JSON.stringify({ error: publicError(error) });
        res
          .writeHead(statusOf(error), { 'Content-Type': 'application/json; charset=utf-8' })
          .end(body);
      },
    );
  };
}
