/**
 * A loopback proxy that adds `Authorization` to every request, so the
 * conformance suite (which sends no credential) can test an endpoint that
 * requires one.
 *
 * Host and Origin keep their meaning: a request that addresses the proxy
 * itself (Host is the proxy's own loopback authority) is rewritten to address
 * the target (its Host, its origin), exactly what a client talking to the
 * target directly would send; any other Host or Origin (a forged
 * `evil.example.com`) is forwarded unchanged, so the target's DNS-rebinding
 * checks see it.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ConformanceTarget {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  url: string;
  /** The full header value, e.g. `Bearer pk_...`. */
  authorization: string;
}

export interface AuthProxy {
  /** The proxy's address for the same path, on 127.0.0.1. */
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
];
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy = { ...headers };
  for (const name of HOP_BY_HOP) delete copy[name];
  return copy;
}

export async function startAuthProxy(target: ConformanceTarget): Promise<AuthProxy> {
  const upstream = new URL(target.url);
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  let ownAuthorities = new Set<string>();
  let ownOrigins = new Set<string>();

  const server = createServer((req, res) => {
    const headers = withoutHopByHop(req.headers);
    // Addressed to the proxy itself: address the target instead. Anything else
    // (a forged Host or Origin) passes unchanged.
    if (headers.host !== undefined && ownAuthorities.has(headers.host)) {
      headers.host = upstream.host;
    }
    if (headers.origin !== undefined && ownOrigins.has(headers.origin)) {
      headers.origin = upstream.origin;
    }
    headers.authorization = target.authorization;

    const forwarded = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
    });
    forwarded.on('response', (reply) => {
      res.writeHead(reply.statusCode ?? 502, withoutHopByHop(reply.headers));
      reply.pipe(res);
    });
    forwarded.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    // A client that stops reading (an SSE stream it cancels) ends the upstream request too.
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });

  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  ownAuthorities = new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
  ownOrigins = new Set([...ownAuthorities].map((authority) => `http://${authority}`));
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}${upstream.search}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
