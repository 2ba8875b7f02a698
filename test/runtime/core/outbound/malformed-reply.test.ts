/**
 * Replies that break HTTP itself, written byte for byte by a raw `net` server
 * on loopback (node:http could not send them): each is `upstream_reply_invalid`,
 * never `upstream_unreachable`, whatever undici's parser calls it.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../../../runtime/core/outbound/guarded-client.ts';
import { gatewayErrorOf } from '../../../support/reason.ts';

const REPLIES: Record<string, string> = {
  '/not-http': 'NOT HTTP AT ALL\r\n\r\n',
  '/bad-status': 'HTTP/1.1 abc OK\r\n\r\n',
  '/bad-header': 'HTTP/1.1 200 OK\r\nBad Header\r\nContent-Length: 2\r\n\r\nok',
  '/bad-chunk': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
  '/two-lengths': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok',
  '/length-and-chunked':
    'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
};

let server: Server;
let origin: string;
let client: GuardedClient;

beforeAll(async () => {
  server = createServer((socket) => {
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const line = /^[A-Z]+ (\S+) HTTP/.exec(head);
      if (!line || !head.includes('\r\n\r\n')) return;
      socket.end(REPLIES[line[1]!] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  client = createGuardedClient({ allowPrivateNetworks: true, replyTimeoutMs: 2_000 });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('a reply that is not valid HTTP', () => {
  it.each(Object.keys(REPLIES))('%s is upstream_reply_invalid, after sending', async (path) => {
    const error = await gatewayErrorOf(
      client.send({ method: 'GET', url: new URL(path, origin), headers: {} }),
    );
    expect({
      code: error.code,
      phase: error.detail?.phase,
      requestSent: error.detail?.requestSent,
    }).toEqual({ code: 'upstream_reply_invalid', phase: 'reply', requestSent: true });
  });
});
