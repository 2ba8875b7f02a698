/**
 * The one reader of JSON request bodies for the Express routes (the admin
 * API, the console's API, the authorization server's registration), with
 * `/mcp`'s read on node:http sharing its rule (`core/base/json-text.ts`):
 * each surface's size limit from one table, one depth limit for all
 * (`MAX_JSON_DEPTH`), checked before parsing. Too large is
 * `payload_too_large` (413); too deep or not JSON is `invalid_input` (400)
 * naming the body, in the one error shape, never an internal error.
 */
import express, { type RequestHandler } from 'express';
import { GatewayError } from '../../core/base/errors.ts';
import { MAX_JSON_DEPTH } from '../../core/base/json-depth.ts';
import { type JsonText, parseJsonText } from '../../core/base/json-text.ts';

export { JSON_BODY_LIMITS } from './json-body-limits.ts';

/**
 * Parses a JSON body (`application/json`, or what `type` matches) of at most
 * `limit` bytes into `req.body`; an empty body, or one of another type,
 * leaves it undefined.
 */
export function jsonBody(
  limit: number,
  type: string | ((req: express.Request) => boolean) = 'application/json',
): RequestHandler {
  // biome-ignore lint/suspicious/noExplicitAny: body-parser's `type` takes a function of the request
  const read = express.text({ type: type as any, limit });
  return (req, res, next) => {
    read(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      const text: unknown = req.body;
      req.body = undefined;
      if (typeof text !== 'string' || text === '') return next();
      const parsed = parseJsonText(text);
      if ('refused' in parsed) return next(jsonBodyRefusal(parsed));
      req.body = parsed.value;
      next();
    });
  };
}

/** The refusal of a body that is too deep or not JSON. */
export function jsonBodyRefusal(parsed: Extract<JsonText, { refused: unknown }>): GatewayError {
  return parsed.refused === 'too_deep'
    ? new GatewayError('invalid_input', `the body nests deeper than ${MAX_JSON_DEPTH} levels`, {
        field: 'body',
        detail: { maxDepth: MAX_JSON_DEPTH },
      })
    : new GatewayError('invalid_input', 'the body is not valid JSON', { field: 'body' });
}
