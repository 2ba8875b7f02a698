/**
 * HTTP adapters for the framework-free MCP endpoint: read the JSON body
 * (size-limited), hand the request over, copy the answer back. A running tool
 * call is aborted when its client's connection closes before the answer, so it
 * learns when nobody is waiting for it any more.
 *
 * Two mounts, same behaviour: `mcpRouter` for an Express app (mcp-router.ts),
 * and `withMcpEndpoint`, which answers the MCP path straight from `node:http`
 * and passes everything else to the app. Express 5 costs roughly three times
 * the endpoint's own CPU per request, so the second is the one for throughput
 * (and the server's start does not load Express).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { McpEndpoint } from '../../core/mcp/server/mcp-endpoint.ts';
import type { McpHttpRequest, McpHttpResponse } from '../../core/mcp/wire/http-exchange.ts';
import { JSON_BODY_LIMITS } from './json-body-limits.ts';

export interface McpRouteOptions {
  /** Default `/mcp`. */
  path?: string;
  /** Largest request body accepted, in bytes. Default 4 MiB. */
  bodyLimit?: number;
  /** Told about a failure to answer (the operator's log); the client gets a JSON-RPC internal error. */
  onInternalError?: (error: unknown) => void;
}

export const DEFAULT_BODY_LIMIT = JSON_BODY_LIMITS.mcp;

/**
 * A `node:http` request listener: requests for `path` go to the endpoint,
 * everything else to `fallback` (e.g. the Express app).
 */
export function withMcpEndpoint(
  endpoint: McpEndpoint,
  fallback: RequestListener,
  options: McpRouteOptions = {},
): RequestListener {
  const path = options.path ?? '/mcp';
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const report = options.onInternalError ?? (() => {});
  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    if ((query < 0 ? url : url.slice(0, query)) !== path) {
      fallback(req, res);
      return;
    }
    serveMcp(endpoint, req, res, bodyLimit).catch((error: unknown) => {
      report(error);
      if (res.headersSent) res.destroy();
      else write(res, INTERNAL_ERROR);
    });
  };
}

/**
 * A `node:http` request listener for `/mcp/c/<connection>`: each connection's
 * own endpoint (found or made by `endpointFor`; undefined: no such
 * connection, left to `fallback`), everything else to `fallback`.
 */
export function withConnectionEndpoints(
  endpointFor: (connection: string) => Promise<McpEndpoint | undefined>,
  fallback: RequestListener,
  options: McpRouteOptions = {},
): RequestListener {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const report = options.onInternalError ?? (() => {});
  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const name = CONNECTION_PATH.exec(path)?.[1];
    if (name === undefined) {
      fallback(req, res);
      return;
    }
    endpointFor(name)
      .then((endpoint) => {
        if (endpoint === undefined) fallback(req, res);
        else return serveMcp(endpoint, req, res, bodyLimit);
      })
      .catch((error: unknown) => {
        report(error);
        if (res.headersSent) res.destroy();
        else write(res, INTERNAL_ERROR);
      });
  };
}

const CONNECTION_PATH = /^\/mcp\/c\/([a-z][a-z0-9-]{0,31})$/;

export async function serveMcp(
  endpoint: McpEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  bodyLimit: number,
): Promise<void> {
  const request: McpHttpRequest = {
    method: req.method ?? '',
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    body: undefined,
  };
  if (req.method === 'POST') {
    const read = req.readableEnded ? alreadyRead(req) : await readJson(req, bodyLimit);
    if (read === ABORTED) return;
    if (read === TOO_LARGE) {
      // The rest of the body stays unread: close the connection after answering.
      res.setHeader('Connection', 'close');
      request.bodyTooLarge = true;
    } else if (read === MALFORMED) request.rawBodyError = true;
    else request.body = read;
    // One listener for every call of the request (a batch may hold a hundred).
    const calls = new Set<{ cancel(): void }>();
    request.cancelOnDisconnect = (call) => {
      if (res.closed) {
        call.cancel();
        return;
      }
      if (calls.size === 0) {
        res.once('close', () => {
          if (!res.writableFinished) for (const running of calls) running.cancel();
        });
      }
      calls.add(call);
    };
  } else {
    req.resume();
  }
  write(res, await endpoint.handle(request));
}

/** What the client gets when the endpoint itself failed: the error is in the operator's log. */
const INTERNAL_ERROR: McpHttpResponse = {
  status: 500,
  headers: { 'Content-Type': 'application/json' },
  body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}',
};

function write(res: ServerResponse, reply: McpHttpResponse): void {
  const { stream } = reply;
  if (res.headersSent || res.destroyed) {
    stream?.lost();
    return;
  }
  if (stream !== undefined) {
    res.writeHead(reply.status, reply.headers);
    res.flushHeaders();
    res.once('close', () => stream.lost());
    stream.attach({ write: (chunk) => res.write(chunk), end: () => res.end() });
    return;
  }
  // With the length stated, Node writes headers and body in one go, not chunked.
  const length = reply.body === undefined ? 0 : Buffer.byteLength(reply.body);
  res.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(length) });
  res.end(reply.body);
}

/** A body some earlier middleware consumed: what it parsed, if anything. */
function alreadyRead(req: IncomingMessage & { body?: unknown }): unknown {
  return req.body;
}

const TOO_LARGE = Symbol('too large');
const MALFORMED = Symbol('malformed');
const ABORTED = Symbol('aborted');
type ReadResult = unknown | typeof TOO_LARGE | typeof MALFORMED | typeof ABORTED;

/**
 * The body parsed as UTF-8 JSON; `undefined` for an empty body. A declared or
 * actual size over the limit stops reading. A compressed body is refused as
 * malformed (MCP clients send plain JSON).
 */
function readJson(req: IncomingMessage, limit: number): Promise<ReadResult> {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') {
    req.resume();
    return Promise.resolve(MALFORMED);
  }
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('error', () => resolve(ABORTED));
    req.once('end', () => {
      if (size > limit) return;
      if (size === 0) {
        resolve(undefined);
        return;
      }
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString(
        'utf8',
      );
      // Parsed whole, however deep: the pipeline refuses arguments nesting past
      // MAX_JSON_DEPTH as arguments_invalid naming the field, with its audit event.
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(MALFORMED);
      }
    });
  });
}
