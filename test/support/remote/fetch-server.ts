/**
 * An MCP server's web-standard handler (SDK v2's `createMcpHandler(...).fetch`)
 * served on loopback over node:http, as a remote server a test connects by
 * URL: each request read whole and handed over as a `Request`, the
 * `Response` streamed back. Its URL is the server's `/mcp`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FetchServer {
  url: string;
  close(): Promise<void>;
}

export async function serveFetch(
  fetchHandler: (request: Request) => Promise<Response>,
): Promise<FetchServer> {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const request = new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method!,
          headers: Object.entries(req.headers).flatMap(([k, v]) =>
            v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
          ),
          ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
        });
        const response = await fetchHandler(request);
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        if (response.body) for await (const chunk of response.body) res.write(chunk);
        res.end();
      } catch (error) {
        if (!res.headersSent) res.writeHead(500).end(String(error));
        else res.end();
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
