/**
 * The HTTP side of a graceful stop, on a real `node:http` server and a raw
 * connection: a request under way when the drain begins answers in full
 * (and its connection then closes), one that comes on that connection after
 * is refused with 503 `endpoint_closed` in the one error shape, and a new
 * connection is refused. At the deadline, what is still open is cut off.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Draining } from '../../../../runtime/adapters/http/draining.ts';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose `/slow` finishes its answer when `release` is called; anything else answers at once. */
async function serving(): Promise<{
  draining: Draining;
  port: number;
  release: () => void;
  arrived: Promise<void>;
}> {
  let release = () => {};
  let arrived = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const arrivedPromise = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const made = createServer();
  const draining = new Draining(made);
  made.on(
    'request',
    draining.serve((req, res) => {
      if (req.url !== '/slow') {
        res.end('quick');
        return;
      }
      // Its head goes at once (so it stays a kept-alive reply); its end when released.
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('slow ');
      arrived();
      void released.then(() => res.end('done'));
    }),
  );
  await new Promise<void>((resolve) => made.listen(0, '127.0.0.1', resolve));
  server = made;
  return {
    draining,
    port: (made.address() as AddressInfo).port,
    release,
    arrived: arrivedPromise,
  };
}

function open(port: number): Promise<{ socket: Socket; text: () => string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1');
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, text: () => text, ended }));
  });
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

describe('draining the HTTP server', () => {
  it('answers what is under way, refuses what comes after with 503 endpoint_closed, and accepts no connection', async () => {
    const { draining, port, release, arrived } = await serving();
    const connection = await open(port);
    connection.socket.write(get('/slow'));
    await arrived;

    const drained = draining.drain(60_000);
    // On the same connection, after the drain began (its reply waits for the first one's): refused.
    connection.socket.write(get('/quick'));
    // A new connection: refused by the closed listener.
    await expect(open(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    release();
    expect(await drained).toEqual({ inTime: true });
    await connection.ended;
    const [slow, refused] = connection.text().split(/(?=HTTP\/1\.1 )/);
    expect(slow).toMatch(/^HTTP\/1\.1 200 /);
    // Chunked: the part sent at once, then the rest and the last chunk.
    expect(slow).toMatch(/slow \r\n[\s\S]*done\r\n0\r\n\r\n$/);
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/\r\nConnection: close\r\n/i);
    expect(refused).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(refused).toContain(
      JSON.stringify({
        error: { code: 'endpoint_closed', message: 'Service Unavailable: endpoint closed' },
      }),
    );
  });

  it('closes an idle kept-alive connection at once', async () => {
    const { draining, port } = await serving();
    const connection = await open(port);
    connection.socket.write(get('/quick'));
    await expect.poll(() => connection.text()).toMatch(/quick$/);
    expect(await draining.drain(60_000)).toEqual({ inTime: true });
    await connection.ended;
  });

  it('cuts off what is still open at the deadline', async () => {
    const { draining, port, arrived } = await serving();
    const connection = await open(port);
    connection.socket.write(get('/slow'));
    await arrived;
    expect(await draining.drain(0)).toEqual({ inTime: false });
    await connection.ended;
    // The head and the first part went; never the rest or the last chunk.
    expect(connection.text()).toMatch(/^HTTP\/1\.1 200 [\s\S]*slow \r\n$/);
  });
});
