/**
 * What a provider receives: the request built from the fixture documents of
 * AWS's and eBay's shapes, sent by the guarded client to a real HTTP server on
 * loopback, arrives with the ARN's `/` still encoded in its one segment and
 * the base path as the document's default wrote it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedClient,
  type GuardedClient,
} from '../../../../../runtime/core/outbound/guarded-client.ts';
import {
  type ActionArguments,
  buildRestRequest,
} from '../../../../../runtime/core/sources/native-rest/build-request.ts';
import { actionNamed, compileFixture } from '../../../../support/fixtures.ts';

let server: Server;
let origin: string;
let client: GuardedClient;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createGuardedClient({ allowPrivateNetworks: true });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends the action's request to the loopback server; returns the request line's target it saw. */
async function received(file: string, name: string, args: ActionArguments): Promise<string> {
  const action = actionNamed(compileFixture(file), name);
  const request = buildRestRequest(action, args, {
    settings: {},
    hostOverride: (url) => new URL(`${url.pathname}${url.search}`, origin),
  });
  const before = seen.length;
  const reply = await client.send({
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  expect(reply.status).toBe(200);
  expect(seen.length).toBe(before + 1);
  return seen.at(-1)!;
}

describe('the request line a provider receives', () => {
  it('an ARN with a resource path, in one segment', async () => {
    const arn = 'arn:aws:workspaces-web:us-east-1:123456789012:portal/abc';
    expect(
      await received('arn-path-values.yaml', 'fx_get_portal', { path: { portalArn: arn } }),
    ).toBe('/portals/arn%3Aaws%3Aworkspaces-web%3Aus-east-1%3A123456789012%3Aportal%2Fabc');
  });

  it('an object key with slashes, in one segment', async () => {
    expect(
      await received('arn-path-values.yaml', 'fx_delete_object', {
        path: { key: 'photos/2024/a.jpg' },
      }),
    ).toBe('/objects/photos%2F2024%2Fa.jpg');
  });

  it("the document's base path, and another from the call", async () => {
    expect(await received('base-path-variable.yaml', 'fx_get_privileges', {})).toBe(
      '/sell/account/v1/privilege',
    );
    expect(
      await received('base-path-variable.yaml', 'fx_get_privileges', {
        server: { basePath: '/sell/finances/v1' },
      }),
    ).toBe('/sell/finances/v1/privilege');
  });
});
