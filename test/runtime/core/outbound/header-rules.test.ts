import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import {
  assertHeaderAllowed,
  whyHeaderNameRefused,
} from '../../../../runtime/core/outbound/header-rules.ts';

type Case = [
  string,
  {
    given: { name: string; value: string; alsoRefuse?: string[] };
    want: 'allowed' | 'header_refused';
  },
];

const cases: Case[] = [
  [
    'an ordinary custom header',
    { given: { name: 'X-Daytona-Organization-ID', value: 'org-1' }, want: 'allowed' },
  ],
  ['Range', { given: { name: 'Range', value: 'bytes=0-99' }, want: 'allowed' }],
  ['obs-text in a value', { given: { name: 'X-Name', value: 'caf\u00e9' }, want: 'allowed' }],
  ['Host', { given: { name: 'Host', value: 'evil.test' }, want: 'header_refused' }],
  ['host in lower case', { given: { name: 'host', value: 'evil.test' }, want: 'header_refused' }],
  ['Cookie', { given: { name: 'Cookie', value: 'a=b' }, want: 'header_refused' }],
  ['Content-Length', { given: { name: 'Content-Length', value: '0' }, want: 'header_refused' }],
  [
    'Transfer-Encoding',
    { given: { name: 'Transfer-Encoding', value: 'chunked' }, want: 'header_refused' },
  ],
  ['Connection', { given: { name: 'Connection', value: 'close' }, want: 'header_refused' }],
  ['Keep-Alive', { given: { name: 'Keep-Alive', value: 'timeout=5' }, want: 'header_refused' }],
  ['TE', { given: { name: 'TE', value: 'trailers' }, want: 'header_refused' }],
  ['Trailer', { given: { name: 'Trailer', value: 'x' }, want: 'header_refused' }],
  ['Upgrade', { given: { name: 'Upgrade', value: 'websocket' }, want: 'header_refused' }],
  ['Expect', { given: { name: 'Expect', value: '100-continue' }, want: 'header_refused' }],
  [
    'Authorization',
    { given: { name: 'Authorization', value: 'Bearer x' }, want: 'header_refused' },
  ],
  [
    'Proxy-Authorization',
    { given: { name: 'Proxy-Authorization', value: 'x' }, want: 'header_refused' },
  ],
  ['any Proxy-*', { given: { name: 'Proxy-Foo', value: 'x' }, want: 'header_refused' }],
  ['any Sec-*', { given: { name: 'Sec-Fetch-Site', value: 'none' }, want: 'header_refused' }],
  ['a name with a space', { given: { name: 'X Bad', value: 'x' }, want: 'header_refused' }],
  ['a name with a colon', { given: { name: 'X-Bad:', value: 'x' }, want: 'header_refused' }],
  ['an empty name', { given: { name: '', value: 'x' }, want: 'header_refused' }],
  [
    'CRLF in a value',
    { given: { name: 'X-Id', value: 'a\r\nHost: evil' }, want: 'header_refused' },
  ],
  ['LF in a value', { given: { name: 'X-Id', value: 'a\nb' }, want: 'header_refused' }],
  ['NUL in a value', { given: { name: 'X-Id', value: 'a\u0000b' }, want: 'header_refused' }],
  ['tab in a value', { given: { name: 'X-Id', value: 'a\tb' }, want: 'header_refused' }],
  ['DEL in a value', { given: { name: 'X-Id', value: 'a\u007fb' }, want: 'header_refused' }],
  [
    'a C1 control (CSI) in a value',
    { given: { name: 'X-Id', value: 'a\u009bb' }, want: 'header_refused' },
  ],
  ['NEL in a value', { given: { name: 'X-Id', value: 'a\u0085b' }, want: 'header_refused' }],
  [
    'a character past Latin-1',
    { given: { name: 'X-Id', value: 'a\u2028b' }, want: 'header_refused' },
  ],
  [
    'a name the context also refuses',
    {
      given: { name: 'Content-Type', value: 'text/plain', alsoRefuse: ['content-type'] },
      want: 'header_refused',
    },
  ],
  [
    'that name elsewhere',
    { given: { name: 'Content-Type', value: 'text/plain' }, want: 'allowed' },
  ],
];

describe('header rules', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    let outcome = 'allowed';
    try {
      assertHeaderAllowed(given.name, given.value, '/header/x', {
        ...(given.alsoRefuse ? { alsoRefuse: given.alsoRefuse } : {}),
      });
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      expect(error.field).toBe('/header/x');
      outcome = error.code;
    }
    expect(outcome).toBe(want);
  });

  it('never puts the value in the message', () => {
    let refused: unknown;
    try {
      assertHeaderAllowed('X-Id', 'secret-value\n', '/header/X-Id');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as Error).message).not.toContain('secret-value');
  });

  it('names the refused header without a value check', () => {
    expect(whyHeaderNameRefused('Sec-WebSocket-Key')).toBeDefined();
    expect(whyHeaderNameRefused('X-Request-Id')).toBeUndefined();
  });
});
