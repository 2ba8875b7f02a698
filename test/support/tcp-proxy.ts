/**
 * A TCP proxy on a free loopback port in front of a real service (the
 * machine's PostgreSQL or Redis), which a test can cut and restore: cut, every
 * connection through it is reset and new ones are reset as they arrive, as a
 * stopped or restarting server looks to its clients; restored, it forwards
 * again. The service itself, which other tests share, is never touched.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** The loopback port clients connect to. */
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  /** Resets every open connection, and every new one until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const socket of open) socket.destroy();
      open.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Where a `postgres://` or `redis://` URL points. */
export function targetOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol.startsWith('redis') ? '6379' : '5432');
  return { host: parsed.hostname, port: Number(port) };
}
