/**
 * `/metrics` alone, without authentication, on a port of its own when
 * `PORTCULLIS_METRICS_PORT` is set (for a scraper inside the cluster; that
 * port answers nothing else). Plain `node:http`: it starts with the gateway,
 * before Express is loaded (the admin-token route on the gateway's port:
 * metrics-route.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../../compose/open-gateway.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** `/metrics` alone, without authentication, on `host:port`. */
export async function startMetricsServer(
  gateway: Gateway,
  host: string,
  port: number,
  onError: (error: unknown) => void,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    gateway.metrics.text().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': gateway.metrics.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        onError(error);
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal error\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  const authority = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${authority}:${bound}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
