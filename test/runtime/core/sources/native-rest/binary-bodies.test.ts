/**
 * Bodies that are not JSON, end to end on loopback: the fixture document
 * compiled, arguments checked with the runtime's ajv, the request built and
 * sent through the guarded client to a real HTTP server that records what it
 * received.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogAction } from '../../../../../generated/catalog-format.ts';
import { createAjv } from '../../../../../runtime/core/base/create-ajv.ts';
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../../../../runtime/core/outbound/guarded-client.ts';
import {
  type ActionArguments,
  buildRestRequest,
} from '../../../../../runtime/core/sources/native-rest/build-request.ts';
import { actionNamed, compileFixture } from '../../../../support/fixtures.ts';
import { type LoopbackServer, startLoopbackServer } from '../../../../support/loopback-server.ts';

interface Received {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

const compiled = compileFixture('binary-bodies.yaml');
const ajv = createAjv([...compiled.annotationFormats]);
let server: LoopbackServer;
let client: GuardedClient;
let received: Received[] = [];

beforeAll(async () => {
  const record = (request: import('node:http').IncomingMessage, body: Buffer) =>
    received.push({
      method: request.method ?? '',
      path: request.url ?? '',
      contentType: request.headers['content-type'] ?? '',
      body,
    });
  const routes = Object.fromEntries(
    ['/hostedzones', '/blobs', '/media', '/videos', '/convert', '/notes', '/cuisine'].map(
      (route) => [
        route,
        (
          request: import('node:http').IncomingMessage,
          response: import('node:http').ServerResponse,
          body: Buffer,
        ) => {
          record(request, body);
          response.writeHead(204).end();
        },
      ],
    ),
  );
  server = await startLoopbackServer(routes);
  client = createGuardedClient({ allowPrivateNetworks: true });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

/** Validates like the gateway does, builds, sends to the loopback server; returns what it received. */
async function call(name: string, args: ActionArguments): Promise<Received> {
  const action = actionNamed(compiled, name);
  ensureValid(action, args);
  const request = buildRestRequest(action, args, {
    settings: {},
    hostOverride: (url) => new URL(`${url.pathname}${url.search}`, server.url),
  });
  received = [];
  const reply = await client.send({
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  expect(reply.status).toBe(204);
  expect(received).toHaveLength(1);
  return received[0]!;
}

function ensureValid(action: CatalogAction, args: ActionArguments): void {
  const validate = ajv.compile(action.inputSchema);
  if (!validate(args)) throw new Error(`ajv refuses: ${JSON.stringify(validate.errors)}`);
}

/** The JSON pointers ajv names for arguments it refuses. */
function ajvRefuses(name: string, args: unknown): string[] {
  const validate = ajv.compile(actionNamed(compiled, name).inputSchema);
  return validate(args) ? [] : (validate.errors ?? []).map((e) => e.instancePath);
}

function builderRefuses(name: string, args: ActionArguments): { code: string; field?: string } {
  try {
    buildRestRequest(actionNamed(compiled, name), args, { settings: {} });
  } catch (error) {
    if (error instanceof GatewayError) return { code: error.code, field: error.field };
    throw error;
  }
  throw new Error('built');
}

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489',
  'hex',
);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>', 'utf8');

describe('an XML body (the document describes it as an object)', () => {
  const xml =
    '<CreateHostedZoneRequest xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Name>example.com</Name><CallerReference>r1</CallerReference></CreateHostedZoneRequest>';

  it('takes the XML text and sends it as application/xml, byte for byte', async () => {
    const got = await call('fx_create_hosted_zone', { body: xml });
    expect(got.contentType).toBe('application/xml');
    expect(got.body.toString('utf8')).toBe(xml);
  });

  it('sends it as text/xml when the call names that offered alternative', async () => {
    const got = await call('fx_create_hosted_zone', { body: xml, contentType: 'text/xml' });
    expect(got.contentType).toBe('text/xml');
  });

  it('an object body fails the schema at /body, before any request', () => {
    expect(ajvRefuses('fx_create_hosted_zone', { body: { Name: 'example.com' } })).toEqual([
      '/body',
    ]);
  });

  it('a media type the document does not offer is refused at /contentType', () => {
    expect(ajvRefuses('fx_create_hosted_zone', { body: xml, contentType: 'text/html' })).toEqual([
      '/contentType',
    ]);
    expect(
      builderRefuses('fx_create_hosted_zone', { body: xml, contentType: 'text/html' }),
    ).toEqual({
      code: 'arguments_invalid',
      field: '/contentType',
    });
  });
});

describe('an octet-stream body', () => {
  it('decodes the base64 argument and sends the bytes as application/octet-stream', async () => {
    const got = await call('fx_put_blob', { path: { key: 'logo' }, body: PNG.toString('base64') });
    expect(got.method).toBe('PUT');
    expect(got.path).toBe('/blobs/logo');
    expect(got.contentType).toBe('application/octet-stream');
    expect(got.body.equals(PNG)).toBe(true);
  });

  it('text that is not base64 fails the schema and the builder at /body', () => {
    const args = { path: { key: 'logo' }, body: 'not base64!' };
    expect(ajvRefuses('fx_put_blob', args)).toEqual(['/body']);
    expect(builderRefuses('fx_put_blob', args)).toEqual({
      code: 'arguments_invalid',
      field: '/body',
    });
  });

  it('a document schema that is an object becomes base64 bytes, the object kept as contentSchema', async () => {
    const video = Buffer.from(JSON.stringify({ snippet: { title: 'x' } }));
    const got = await call('fx_insert_video', { body: video.toString('base64') });
    expect(got.body.equals(video)).toBe(true);
    expect(ajvRefuses('fx_insert_video', { body: { snippet: { title: 'x' } } })).toEqual(['/body']);
  });
});

describe('raw bytes in one of several offered media types', () => {
  it('sends the chosen type by default, and another offered one when the call names it', async () => {
    expect((await call('fx_upload_media', { body: PNG.toString('base64') })).contentType).toBe(
      'image/png',
    );
    const ogg = await call('fx_upload_media', { body: 'T2dnUw==', contentType: 'audio/ogg' });
    expect(ogg.contentType).toBe('audio/ogg');
    expect(ogg.body.toString('latin1')).toBe('OggS');
  });
});

describe('a multipart upload with a file part', () => {
  /** The parts of a multipart body: headers and raw content. */
  function parts(got: Received): Array<{ headers: string; content: Buffer }> {
    const boundary = /boundary=(.+)$/.exec(got.contentType)?.[1];
    expect(boundary).toBeDefined();
    const text = got.body.toString('latin1');
    return text
      .split(`--${boundary}`)
      .slice(1, -1)
      .map((part) => {
        const split = part.indexOf('\r\n\r\n');
        return {
          headers: part.slice(2, split),
          content: Buffer.from(part.slice(split + 4, -2), 'latin1'),
        };
      });
  }

  it("sends the decoded bytes with a filename and the encoding's content type; plain fields stay text", async () => {
    const got = await call('fx_convert', { body: { file: SVG.toString('base64'), format: 'png' } });
    const [file, format] = parts(got);
    expect(file!.headers).toBe(
      'Content-Disposition: form-data; name="file"; filename="file"\r\nContent-Type: image/svg+xml',
    );
    expect(file!.content.equals(SVG)).toBe(true);
    expect(format!.headers).toBe('Content-Disposition: form-data; name="format"');
    expect(format!.content.toString('utf8')).toBe('png');
  });

  it("takes each file part's filename and content type from the files argument, lists repeating the part", async () => {
    const got = await call('fx_convert', {
      body: { file: SVG.toString('base64'), attachments: [PNG.toString('base64'), 'AAE='] },
      files: {
        file: { filename: 'logo.svg' },
        attachments: { filename: 'extra.png', contentType: 'image/png' },
      },
    });
    const [file, first, second] = parts(got);
    expect(file!.headers).toContain('filename="logo.svg"\r\nContent-Type: image/svg+xml');
    expect(first!.headers).toBe(
      'Content-Disposition: form-data; name="attachments"; filename="extra.png"\r\nContent-Type: image/png',
    );
    expect(first!.content.equals(PNG)).toBe(true);
    expect(second!.content.equals(Buffer.from([0, 1]))).toBe(true);
  });

  it('a file part that is not base64 is refused at its own field', () => {
    const args = { body: { file: SVG.toString('base64'), attachments: ['AAE=', '%%'] } };
    expect(ajvRefuses('fx_convert', args)).toEqual(['/body/attachments/1']);
    expect(builderRefuses('fx_convert', args)).toEqual({
      code: 'arguments_invalid',
      field: '/body/attachments/1',
    });
  });
});

describe('a base64 field in a JSON body', () => {
  it('stays base64 text inside the JSON (JSON carries no bytes), checked as base64', async () => {
    const got = await call('fx_create_note', {
      body: { title: 'n', attachment: PNG.toString('base64') },
    });
    expect(got.contentType).toBe('application/json');
    expect(JSON.parse(got.body.toString('utf8'))).toEqual({
      title: 'n',
      attachment: PNG.toString('base64'),
    });
    expect(ajvRefuses('fx_create_note', { body: { title: 'n', attachment: 'no way' } })).toEqual([
      '/body/attachment',
    ]);
  });
});

describe('a form body described as a string', () => {
  it('is sent as it is, already encoded, under the form media type', async () => {
    const got = await call('fx_classify_cuisine', { body: 'title=Pork%20roast&servings=2' });
    expect(got.contentType).toBe('application/x-www-form-urlencoded');
    expect(got.body.toString('utf8')).toBe('title=Pork%20roast&servings=2');
  });
});
