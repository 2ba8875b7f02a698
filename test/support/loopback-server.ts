/** A real `node:http` server on 127.0.0.1 for the outbound client's tests, counting connections. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface LoopbackServer {
  url: URL;
  port: number;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Requests seen so far, by route. */
  hits(route: string): number;
  /** Resolves when the route next receives a request. */
  nextHit(route: string): Promise<void>;
  close(): Promise<void>;
}

export type Route = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;

export async function startLoopbackServer(routes: Record<string, Route>): Promise<LoopbackServer> {
  let connections = 0;
  const hits = new Map<string, number>();
  const waiters = new Map<string, Array<() => void>>();
  const server: Server = createServer((request, response) => {
    // A route matches its path and anything below it (`/never-answers/...`).
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const name = `/${path.split('/')[1] ?? ''}`;
    hits.set(name, (hits.get(name) ?? 0) + 1);
    for (const wake of waiters.get(name) ?? []) wake();
    waiters.delete(name);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const route = routes[name];
      if (!route) {
        response.writeHead(404).end();
        return;
      }
      route(request, response, Buffer.concat(chunks));
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    port,
    connections: () => connections,
    hits: (route) => hits.get(route) ?? 0,
    nextHit: (route) =>
      new Promise<void>((resolve) => {
        waiters.set(route, [...(waiters.get(route) ?? []), resolve]);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
