/**
 * The listener made at the first request (the Express app, loaded then):
 * requests that arrive meanwhile wait for it and are all served by the one
 * listener made; a failure to make it answers 500 `internal` and the next
 * request tries again.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyListener } from '../../../../runtime/adapters/http/lazy-listener.ts';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(listener: RequestListener): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('lazyListener', () => {
  it('makes the listener once, at the first request, and serves every request with it', async () => {
    let made = 0;
    const url = await serve(
      lazyListener(
        async () => {
          made += 1;
          return (_req, res) => res.end(`listener ${made}`);
        },
        () => {},
      ),
    );
    expect(made).toBe(0);
    const replies = await Promise.all([1, 2, 3].map(() => fetch(url).then((r) => r.text())));
    expect(replies).toEqual(['listener 1', 'listener 1', 'listener 1']);
    expect(await (await fetch(url)).text()).toBe('listener 1');
    expect(made).toBe(1);
  });

  it('answers 500 internal when making it fails, tells the log, and tries again on the next request', async () => {
    const logged: unknown[] = [];
    let attempts = 0;
    const url = await serve(
      lazyListener(
        async () => {
          attempts += 1;
          if (attempts === 1) throw new Error('chunk missing');
          return (_req, res) => res.end('served');
        },
        (error) => logged.push(error),
      ),
    );
    const failed = await fetch(url);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { code: 'internal' } });
    expect(logged).toHaveLength(1);
    expect(await (await fetch(url)).text()).toBe('served');
    expect(attempts).toBe(2);
  });
});
