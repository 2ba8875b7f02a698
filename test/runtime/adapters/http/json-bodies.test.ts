/**
 * Every JSON route reads its body the one way (`adapters/http/json-body.ts`,
 * `core/base/json-text.ts`): one table over the console's API, the admin
 * API, the authorization server's registration and `/mcp`, each posted a
 * body nesting too deep (60 KB of `[`; a valid document nesting 10,000
 * levels inside a field a verb reads) and one too large. Each answers 4xx in
 * its surface's one error shape (the gateway's, OAuth's, JSON-RPC's), never
 * 500 `internal`, and the gateway answers the next request as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_BODY_LIMITS } from '../../../../runtime/adapters/http/json-body-limits.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { addMember } from '../../../../runtime/core/operator/members.ts';
import { startTestGateway, type TestGateway } from '../../../support/gateway.ts';

const OWNER = { name: 'jo', password: 'a password long enough' };
let running: TestGateway;
let agentKey: string;
let console_: { cookie: string; csrf: string };

beforeAll(async () => {
  running = await startTestGateway();
  const ctx = running.running.gateway.operator('cli');
  await addMember(ctx, { workspace: 'default', ...OWNER, role: 'owner' });
  agentKey = (await createAgent(ctx, { workspace: 'default', name: 'json-bot' })).key;
  const signedIn = await fetch(`${running.url}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OWNER),
  });
  expect(signedIn.status).toBe(200);
  console_ = {
    cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!,
    csrf: ((await signedIn.json()) as { csrf: string }).csrf,
  };
});
afterAll(() => running?.close());

/** A document nesting `levels` deep inside `field` of an object: valid JSON. */
const deepIn = (field: string, levels: number) =>
  `{"${field}":${'['.repeat(levels)}${']'.repeat(levels)}}`;
/** Valid JSON of `bytes` bytes: a string field that fills it. */
const sized = (field: string, bytes: number) =>
  `{"${field}":"${'a'.repeat(bytes - field.length - 7)}"}`;

interface Route {
  path: string;
  headers: () => Record<string, string>;
  limit: number;
  /** The field a verb reads, to nest in. */
  field: string;
  /** What the surface's one error shape says for a body it cannot read, and for one too large. */
  unreadable: (status: number, body: any) => void;
  tooLarge: (status: number, body: any) => void;
}

const gatewayShape = (status: number, code: string) => (got: number, body: any) => {
  expect(got).toBe(status);
  expect(body.error.code).toBe(code);
  if (code === 'invalid_input') expect(body.error.field).toBe('body');
};

const ROUTES: Array<[string, Route]> = [
  [
    'the console API (POST /console/api/agents, signed in)',
    {
      path: '/console/api/agents',
      headers: () => ({ cookie: console_.cookie, 'x-portcullis-csrf': console_.csrf }),
      limit: JSON_BODY_LIMITS.console,
      field: 'name',
      unreadable: gatewayShape(400, 'invalid_input'),
      tooLarge: gatewayShape(413, 'payload_too_large'),
    },
  ],
  [
    'the console sign-in (POST /console/api/sign-in)',
    {
      path: '/console/api/sign-in',
      headers: () => ({}),
      limit: JSON_BODY_LIMITS.console,
      field: 'name',
      unreadable: gatewayShape(400, 'invalid_input'),
      tooLarge: gatewayShape(413, 'payload_too_large'),
    },
  ],
  [
    'the admin API (POST /admin/v1/workspaces)',
    {
      path: '/admin/v1/workspaces',
      headers: () => ({ authorization: `Bearer ${running.adminToken}` }),
      limit: JSON_BODY_LIMITS.admin,
      field: 'name',
      unreadable: gatewayShape(400, 'invalid_input'),
      tooLarge: gatewayShape(413, 'payload_too_large'),
    },
  ],
  [
    'OAuth registration (POST /oauth/register)',
    {
      path: '/oauth/register',
      headers: () => ({}),
      limit: JSON_BODY_LIMITS.oauth,
      field: 'redirect_uris',
      unreadable: (status, body) => {
        expect(status).toBe(400);
        expect(body.error).toBe('invalid_client_metadata');
      },
      tooLarge: (status, body) => {
        expect(status).toBe(413);
        expect(body.error.code).toBe('payload_too_large');
      },
    },
  ],
  [
    'MCP (POST /mcp, an agent key)',
    {
      path: '/mcp',
      headers: () => ({
        authorization: `Bearer ${agentKey}`,
        accept: 'application/json, text/event-stream',
      }),
      limit: JSON_BODY_LIMITS.mcp,
      field: 'params',
      // Not JSON: parse error. Deep but valid: params that are no object, an invalid request
      // (arguments nesting too deep are arguments_invalid, audited: unencodable-arguments.test.ts).
      unreadable: (status, body) => {
        expect(status).toBe(400);
        expect([-32700, -32600]).toContain(body.error.code);
      },
      tooLarge: (status, body) => {
        expect(status).toBe(413);
        expect(body.jsonrpc).toBe('2.0');
        expect(body.error.message).toBe('Payload Too Large');
      },
    },
  ],
];

async function post(route: Route, body: string) {
  const reply = await fetch(`${running.url}${route.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...route.headers() },
    body,
  });
  const text = await reply.text();
  return { status: reply.status, body: JSON.parse(text) };
}

describe('a JSON body nesting too deep or too large', () => {
  for (const [name, route] of ROUTES) {
    describe(name, () => {
      it('60 KB of [ is refused as unreadable, not internal', async () => {
        const { status, body } = await post(route, '['.repeat(60_000));
        route.unreadable(status, body);
      });
      it('a valid document nesting 10,000 levels in a field is refused as unreadable', async () => {
        const { status, body } = await post(route, deepIn(route.field, 10_000));
        route.unreadable(status, body);
      });
      it('a body one byte over its limit is refused as too large', async () => {
        const { status, body } = await post(route, sized(route.field, route.limit + 1));
        route.tooLarge(status, body);
      });
      it('a body at its depth limit is read', async () => {
        const { status } = await post(route, deepIn(route.field, 200));
        expect(status).toBeLessThan(500);
        expect(status).not.toBe(413);
      });
    });
  }
});
