/**
 * A bare node:http reverse proxy: every request forwarded to the upstream over
 * a keep-alive agent, the response streamed back. The floor of "one more hop".
 */
import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';
import { listenAndAnnounce, upstreamArgument } from './announce.ts';

const upstream = upstreamArgument();
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

const server = createServer((incoming, outgoing) => {
  const forwarded = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: incoming.method,
      path: incoming.url,
      headers: { ...endToEnd(incoming.headers), host: upstream.host },
      agent,
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => {
    if (!outgoing.headersSent) outgoing.writeHead(502);
    outgoing.end();
  });
  incoming.pipe(forwarded);
});
listenAndAnnounce(server);
