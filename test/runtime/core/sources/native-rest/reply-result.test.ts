/**
 * Replies that are not JSON, from a real HTTP server on loopback through the
 * guarded client: images and audio as MCP `image` and `audio` content, other
 * bytes as an embedded resource, text as text, never bytes mangled into text.
 */

import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../../../../runtime/core/outbound/guarded-client.ts';
import { resultFromReply } from '../../../../../runtime/core/sources/native-rest/reply-result.ts';
import { actionNamed, compileFixture } from '../../../../support/fixtures.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../../support/loopback-server.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const OGG = Buffer.from('4f67675300020000000000000000', 'hex');
const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
const LATIN1 = Buffer.from('caf\xe9', 'latin1');

const replies: Record<string, { status: number; type?: string; body: Buffer }> = {
  png: { status: 200, type: 'image/png', body: PNG },
  ogg: { status: 200, type: 'audio/ogg', body: OGG },
  pdf: { status: 200, type: 'application/pdf', body: PDF },
  untyped: { status: 200, body: Buffer.from([0xff, 0xd8, 0xff, 0x00]) },
  'untyped-text': { status: 200, body: Buffer.from('plain words') },
  latin1: { status: 200, type: 'text/plain; charset=iso-8859-1', body: LATIN1 },
  xml: { status: 200, type: 'application/xml', body: Buffer.from('<ok/>') },
  broken: { status: 500, type: 'image/png', body: PNG },
};

const action = actionNamed(compileFixture('binary-bodies.yaml'), 'fx_get_image');
let server: LoopbackServer;
let client: GuardedClient;

beforeAll(async () => {
  server = await startLoopbackServer({
    '/images': (request, response: ServerResponse) => {
      const reply = replies[request.url?.split('/')[2] ?? '']!;
      response.writeHead(reply.status, reply.type ? { 'content-type': reply.type } : {});
      response.end(reply.body);
    },
  });
  client = createGuardedClient({ allowPrivateNetworks: true });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

async function fetchResult(id: string) {
  const reply = await client.send({
    method: 'GET',
    url: new URL(`/images/${id}`, server.url),
    headers: {},
  });
  return resultFromReply(action, reply);
}

describe('replies that are not JSON', () => {
  it('an image comes back as image content with its MIME type and its exact bytes', async () => {
    const result = await fetchResult('png');
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([
      { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
    ]);
  });

  it('audio comes back as audio content', async () => {
    expect((await fetchResult('ogg')).content).toEqual([
      { type: 'audio', data: OGG.toString('base64'), mimeType: 'audio/ogg' },
    ]);
  });

  it('a PDF comes back as an embedded resource with its MIME type', async () => {
    expect((await fetchResult('pdf')).content).toEqual([
      {
        type: 'resource',
        resource: {
          uri: 'portcullis://reply/fx_get_image',
          mimeType: 'application/pdf',
          blob: PDF.toString('base64'),
        },
      },
    ]);
  });

  it('bytes without a content type that are not UTF-8 are a resource, not mangled text', async () => {
    const [content] = (await fetchResult('untyped')).content;
    expect(content).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'application/octet-stream', blob: '/9j/AA==' },
    });
  });

  it('UTF-8 without a content type, and XML, are text', async () => {
    expect((await fetchResult('untyped-text')).content).toEqual([
      { type: 'text', text: 'plain words' },
    ]);
    expect((await fetchResult('xml')).content).toEqual([{ type: 'text', text: '<ok/>' }]);
  });

  it('text in a declared charset is decoded in that charset', async () => {
    expect((await fetchResult('latin1')).content).toEqual([{ type: 'text', text: 'café' }]);
  });

  it('an error status with an image body says how many bytes of what, never the bytes as text', async () => {
    const result = await fetchResult('broken');
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: `upstream_status: the provider answered HTTP 500\n(${PNG.byteLength} bytes of image/png)`,
      },
    ]);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'upstream_status', reply: { mimeType: 'image/png', bytes: PNG.byteLength } },
    });
  });
});
