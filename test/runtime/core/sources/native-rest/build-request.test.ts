import { describe, expect, it, vi } from 'vitest';
import type {
  BodyKind,
  BodySpec,
  ParameterSpec,
  StyledParameterSpec,
} from '../../../../../generated/catalog-format.ts';
import {
  type ActionArguments,
  buildRestRequest,
} from '../../../../../runtime/core/sources/native-rest/build-request.ts';
import { reasonOf } from '../../../../support/reason.ts';
import { realAction, schemaValid, syntheticAction } from '../../../../support/rest-actions.ts';

const INSTANCE = '123e4567-e89b-12d3-a456-426614174000';

describe('bodies on GET and DELETE (real Unikraft actions)', () => {
  type Case = [
    string,
    {
      given: { action: string; args: ActionArguments };
      want: { method: string; href: string; body: unknown };
    },
  ];
  const cases: Case[] = [
    [
      'GET /v1/instances with a JSON body',
      {
        given: {
          action: 'unikraft_get_instances',
          args: { query: { details: false }, body: [{ name: 'funky-town' }] },
        },
        want: {
          method: 'GET',
          href: 'https://api.fra.unikraft.cloud/v1/instances?details=false',
          body: [{ name: 'funky-town' }],
        },
      },
    ],
    [
      'DELETE /v1/instances with a JSON body',
      {
        given: {
          action: 'unikraft_delete_instances',
          args: { server: { metro: 'sfo' }, query: { timeout_s: 0 }, body: [{ uuid: INSTANCE }] },
        },
        want: {
          method: 'DELETE',
          href: 'https://api.sfo.unikraft.cloud/v1/instances?timeout_s=0',
          body: [{ uuid: INSTANCE }],
        },
      },
    ],
    [
      'GET logs of one instance with a JSON body',
      {
        given: {
          action: 'unikraft_get_instance_logs_by_uuid',
          args: { path: { uuid: INSTANCE }, body: { offset: 0, limit: 10 } },
        },
        want: {
          method: 'GET',
          href: `https://api.fra.unikraft.cloud/v1/instances/${INSTANCE}/log`,
          body: { offset: 0, limit: 10 },
        },
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const action = realAction('unikraft', given.action);
    const built = buildRestRequest(action, schemaValid('unikraft', action, given.args), {
      settings: {},
    });
    expect(built.method).toBe(want.method);
    expect(built.url.href).toBe(want.href);
    expect(built.headers['content-type']).toBe('application/json');
    expect(JSON.parse(String(built.body ?? 'null'))).toEqual(want.body);
  });

  it('a GET whose body is optional sends none when the call gives none', () => {
    const action = realAction('unikraft', 'unikraft_sandbox_get_command_logs');
    const args = schemaValid('unikraft', action, {
      server: { instance: 'app' },
      path: { uuid: INSTANCE },
    });
    const built = buildRestRequest(action, args, { settings: {} });
    expect(built.body).toBeUndefined();
    expect(built.headers['content-type']).toBeUndefined();
  });

  it('a required body that is missing is arguments_invalid at /body', () => {
    const action = realAction('unikraft', 'unikraft_delete_instances');
    expect(reasonOf(() => buildRestRequest(action, {}, { settings: {} }))).toEqual({
      code: 'arguments_invalid',
      field: '/body',
    });
  });

  it('a body for an action that takes none is arguments_invalid at /body', () => {
    const action = realAction('unikraft', 'unikraft_get_user');
    expect(reasonOf(() => buildRestRequest(action, { body: {} }, { settings: {} }))).toEqual({
      code: 'arguments_invalid',
      field: '/body',
    });
  });
});

describe('body media types', () => {
  const withBody = (contentType: string, kind: BodyKind, extra: Partial<BodySpec> = {}) =>
    syntheticAction({ method: 'POST', body: { required: true, contentType, kind, ...extra } });

  type Case = [
    string,
    {
      given: { contentType: string; kind: BodyKind; body: unknown };
      want: { contentType: string; body: string } | { code: string };
    },
  ];
  const cases: Case[] = [
    [
      'JSON',
      {
        given: { contentType: 'application/json', kind: 'json', body: { a: [1, 'x'] } },
        want: { contentType: 'application/json', body: '{"a":[1,"x"]}' },
      },
    ],
    [
      'a +json type',
      {
        given: { contentType: 'application/merge-patch+json', kind: 'json', body: { a: null } },
        want: { contentType: 'application/merge-patch+json', body: '{"a":null}' },
      },
    ],
    [
      'a JSON string stays JSON',
      {
        given: { contentType: 'application/json', kind: 'json', body: 'text' },
        want: { contentType: 'application/json', body: '"text"' },
      },
    ],
    [
      'form-urlencoded',
      {
        given: {
          contentType: 'application/x-www-form-urlencoded',
          kind: 'form',
          body: { a: 1, b: 'x y&z', c: ['p', 'q'] },
        },
        want: { contentType: 'application/x-www-form-urlencoded', body: 'a=1&b=x+y%26z&c=p&c=q' },
      },
    ],
    [
      'text as it is',
      {
        given: { contentType: 'text/plain', kind: 'text', body: 'line one\nline two' },
        want: { contentType: 'text/plain', body: 'line one\nline two' },
      },
    ],
    [
      'a wildcard type with an object is JSON',
      {
        given: { contentType: '*/*', kind: 'json', body: { a: 1 } },
        want: { contentType: 'application/json', body: '{"a":1}' },
      },
    ],
    [
      'a wildcard type with text',
      {
        given: { contentType: '*/*', kind: 'text', body: 'raw' },
        want: { contentType: 'text/plain; charset=utf-8', body: 'raw' },
      },
    ],
    [
      'an object for a text type',
      {
        given: { contentType: 'text/plain', kind: 'text', body: { a: 1 } },
        want: { code: 'arguments_invalid' },
      },
    ],
    [
      'a list for a form type',
      {
        given: { contentType: 'application/x-www-form-urlencoded', kind: 'form', body: [1] },
        want: { code: 'arguments_invalid' },
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const action = withBody(given.contentType, given.kind);
    if ('code' in want) {
      expect(
        reasonOf(() => buildRestRequest(action, { body: given.body }, { settings: {} })),
      ).toEqual({
        code: want.code,
        field: '/body',
      });
      return;
    }
    const built = buildRestRequest(action, { body: given.body }, { settings: {} });
    expect(built.headers['content-type']).toBe(want.contentType);
    expect(built.body).toBe(want.body);
  });

  it('a body spec without a kind (a catalog compiled before it) is read by its media type', () => {
    const legacy = (contentType: string) =>
      syntheticAction({ method: 'POST', body: { required: true, contentType } });
    const send = (contentType: string, body: unknown) =>
      buildRestRequest(legacy(contentType), { body }, { settings: {} });
    expect(send('application/json', { a: 1 }).body).toBe('{"a":1}');
    expect(send('*/*', { a: 1 }).headers['content-type']).toBe('application/json');
    expect(send('*/*', 'raw').headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(send('application/x-www-form-urlencoded', { a: 'b c' }).body).toBe('a=b+c');
    expect(send('application/octet-stream', 'as is').body).toBe('as is');
  });

  it('multipart/form-data: one part per property, lists repeat the part', () => {
    const action = withBody('multipart/form-data', 'multipart', {
      encoding: { meta: { contentType: 'application/json' } },
    });
    const built = buildRestRequest(
      action,
      { body: { path: '/tmp/a.txt', file: 'hello', meta: { mode: 1 }, tag: ['x', 'y'] } },
      { settings: {} },
    );
    const type = built.headers['content-type'] ?? '';
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(type)?.[1];
    expect(boundary).toBeDefined();
    const parts = Buffer.from(built.body ?? '')
      .toString('utf8')
      .split(`--${boundary}`);
    expect(parts.at(-1)).toBe('--\r\n');
    const named = (name: string) => parts.filter((p) => p.includes(`name="${name}"`));
    expect(named('file')[0]).toContain('\r\n\r\nhello\r\n');
    expect(named('meta')[0]).toContain('Content-Type: application/json\r\n\r\n{"mode":1}\r\n');
    expect(named('tag')).toHaveLength(2);
  });
});

describe('header and cookie parameters', () => {
  const header = (
    name: string,
    serialization: Partial<StyledParameterSpec> = {},
  ): StyledParameterSpec => ({
    name,
    in: 'header',
    required: false,
    style: 'simple',
    explode: false,
    allowReserved: false,
    ...serialization,
  });

  it('a real header parameter (Daytona organization) is sent under its name', () => {
    const action = realAction('daytona', 'daytona_activate_snapshot');
    const args = schemaValid('daytona', action, {
      path: { id: 'snap-1' },
      header: { 'X-Daytona-Organization-ID': 'org-42' },
    });
    const built = buildRestRequest(action, args, { settings: {} });
    expect(built.headers['x-daytona-organization-id']).toBe('org-42');
    expect(built.url.href).toBe('https://app.daytona.io/api/snapshots/snap-1/activate');
  });

  type Case = [
    string,
    {
      given: { spec: ParameterSpec; value: unknown };
      want: string | { code: string; field: string };
    },
  ];
  const cases: Case[] = [
    ['a primitive', { given: { spec: header('X-Id'), value: 7 }, want: '7' }],
    ['a list', { given: { spec: header('X-Ids'), value: ['a', 'b'] }, want: 'a,b' }],
    ['an object', { given: { spec: header('X-Obj'), value: { a: 1, b: 2 } }, want: 'a,1,b,2' }],
    [
      'an object, explode',
      {
        given: { spec: header('X-Obj', { explode: true }), value: { a: 1, b: 2 } },
        want: 'a=1,b=2',
      },
    ],
    [
      'a value is not percent-encoded',
      { given: { spec: header('Range'), value: 'bytes=0-99' }, want: 'bytes=0-99' },
    ],
    [
      'CRLF in a value',
      {
        given: { spec: header('X-Id'), value: 'a\r\nHost: evil.test' },
        want: { code: 'header_refused', field: '/header/X-Id' },
      },
    ],
    [
      'a Host parameter',
      {
        given: { spec: header('Host'), value: 'evil.test' },
        want: { code: 'header_refused', field: '/header/Host' },
      },
    ],
    [
      'an Authorization parameter',
      {
        given: { spec: header('Authorization'), value: 'Bearer x' },
        want: { code: 'header_refused', field: '/header/Authorization' },
      },
    ],
    [
      'a Content-Type parameter (the body owns it)',
      {
        given: { spec: header('Content-Type'), value: 'text/plain' },
        want: { code: 'header_refused', field: '/header/Content-Type' },
      },
    ],
    [
      'a Transfer-Encoding parameter',
      {
        given: { spec: header('Transfer-Encoding'), value: 'chunked' },
        want: { code: 'header_refused', field: '/header/Transfer-Encoding' },
      },
    ],
  ];

  it.each(cases)('%s', (_name, { given, want }) => {
    const action = syntheticAction({ parameters: [given.spec] });
    const build = () =>
      buildRestRequest(action, { header: { [given.spec.name]: given.value } }, { settings: {} });
    if (typeof want === 'string') expect(build().headers[given.spec.name.toLowerCase()]).toBe(want);
    else expect(reasonOf(build)).toEqual(want);
  });

  it('cookie parameters become one Cookie header, values encoded', () => {
    const cookie = (name: string): ParameterSpec => ({
      name,
      in: 'cookie',
      required: false,
      style: 'form',
      explode: true,
      allowReserved: false,
    });
    const action = syntheticAction({ parameters: [cookie('session'), cookie('theme')] });
    const built = buildRestRequest(
      action,
      { cookie: { session: 'a;b c', theme: 'dark' } },
      { settings: {} },
    );
    expect(built.headers.cookie).toBe('session=a%3Bb%20c; theme=dark');
  });
});

describe('the development host override', () => {
  const action = realAction('unikraft', 'unikraft_get_instances');
  const args = { server: { metro: 'was' }, query: { count: 5 }, body: [{ name: 'x' }] };
  const toPrism = (url: URL) => new URL(`${url.pathname}${url.search}`, 'http://127.0.0.1:4010');

  it('rewrites where the request goes, after the checks; host stays the logical one', () => {
    const seen: string[] = [];
    const built = buildRestRequest(action, args, {
      settings: {},
      hostOverride: (url) => {
        seen.push(url.href);
        return toPrism(url);
      },
    });
    expect(seen).toEqual(['https://api.was.unikraft.cloud/v1/instances?count=5']);
    expect(built.url.href).toBe('http://127.0.0.1:4010/v1/instances?count=5');
    expect(built.host).toBe('api.was.unikraft.cloud');
    expect(built.body).toBe('[{"name":"x"}]');
  });

  it('is never reached when a check refuses the call', () => {
    const hostOverride = vi.fn(toPrism);
    expect(
      reasonOf(() =>
        buildRestRequest(
          action,
          { ...args, server: { metro: 'ams' } },
          { settings: {}, hostOverride },
        ),
      ),
    ).toEqual({ code: 'server_variable_refused', field: '/server/metro' });
    expect(hostOverride).not.toHaveBeenCalled();
  });
});
