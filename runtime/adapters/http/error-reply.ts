/**
 * Every error the Express surface answers, in the one JSON shape
 * `{"error": {"code", "message", "field"?}}` with the status from the reason
 * table: the gateway's own errors, what Express and its body parser throw
 * (a body too large, not JSON, a path that does not decode), and routes that
 * do not exist. Only internal errors reach the operator's log.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Log } from '../../compose/log.ts';
import { GatewayError, publicError, statusOf } from '../../core/base/errors.ts';
import { retryAfterOf } from '../../core/governance/request-limits.ts';

export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type('application/json').send(JSON.stringify(body));
}

export function sendError(res: Response, error: unknown): void {
  const status = statusOf(error);
  // A request whose body is still unread is not worth reading to keep the connection.
  if (status === 401 || status === 413) res.set('Connection', 'close');
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) res.set('Retry-After', String(retryAfter));
  sendJson(res, status, { error: publicError(error) });
}

/** An Express error handler answering the JSON shape; internal errors go to the log. */
export function errorReply(log: Log, what: string) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const known = asGatewayError(error);
    if (statusOf(known) >= 500) log.error({ err: error, path: req.path }, what);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, known);
  };
}

/** A route nobody serves: `not_found` naming the method and path. */
export function noSuchRoute(req: Request, res: Response): void {
  sendError(
    res,
    new GatewayError('not_found', `no route ${req.method} ${req.baseUrl}${req.path}`, {
      field: 'path',
    }),
  );
}

/** What Express and body-parser throw (http-errors with a `type` or a 4xx `status`), as a reason code. */
function asGatewayError(error: unknown): unknown {
  if (error instanceof GatewayError) return error;
  const { type, status, limit } = (error ?? {}) as {
    type?: string;
    status?: number;
    limit?: number;
  };
  if (type === 'entity.too.large') {
    return new GatewayError('payload_too_large', `the body is larger than ${limit} bytes`, {
      field: 'body',
      detail: { limit },
    });
  }
  if (type === 'entity.parse.failed') {
    return new GatewayError('invalid_input', 'the body is not valid JSON', { field: 'body' });
  }
  if (error instanceof URIError) {
    return new GatewayError('invalid_input', 'the path is not valid percent-encoding', {
      field: 'path',
    });
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new GatewayError(
      'invalid_input',
      `the request cannot be read (${type ?? 'bad request'})`,
      { field: 'body' },
    );
  }
  return error;
}
