import { describe, expect, it } from 'vitest';
import {
  createOriginGuard,
  type OriginGuardOptions,
  type OriginGuardVerdict,
} from '../../../../../runtime/core/mcp/server/origin-guard.ts';

type Case = [
  string,
  {
    given: { host: string | undefined; origin?: string; options?: OriginGuardOptions };
    want: OriginGuardVerdict;
  },
];

const cases: Case[] = [
  ['loopback IPv4 with a port', { given: { host: '127.0.0.1:8080' }, want: 'ok' }],
  ['localhost without a port', { given: { host: 'localhost' }, want: 'ok' }],
  ['localhost in capitals', { given: { host: 'LOCALHOST:3000' }, want: 'ok' }],
  ['loopback IPv6 with a port', { given: { host: '[::1]:443' }, want: 'ok' }],
  ['a foreign host', { given: { host: 'evil.example.com' }, want: 'host_refused' }],
  ['a foreign host on a port', { given: { host: 'evil.example.com:8080' }, want: 'host_refused' }],
  [
    'a loopback-looking suffix',
    { given: { host: 'localhost.evil.example.com' }, want: 'host_refused' },
  ],
  ['another loopback address', { given: { host: '127.0.0.2:80' }, want: 'host_refused' }],
  ['no Host header', { given: { host: undefined }, want: 'host_refused' }],
  ['a repeated Host header', { given: { host: '' }, want: 'host_refused' }],
  ['a port that is not a number', { given: { host: 'localhost:80x' }, want: 'host_refused' }],
  ['a port out of range', { given: { host: 'localhost:70000' }, want: 'host_refused' }],
  ['user info in Host', { given: { host: 'evil@localhost' }, want: 'host_refused' }],
  [
    'a loopback origin on any port',
    { given: { host: 'localhost:1', origin: 'http://localhost:5173' }, want: 'ok' },
  ],
  [
    'an https loopback origin',
    { given: { host: 'localhost', origin: 'https://[::1]' }, want: 'ok' },
  ],
  [
    'a foreign origin',
    { given: { host: 'localhost', origin: 'http://evil.example.com' }, want: 'origin_refused' },
  ],
  ['the null origin', { given: { host: 'localhost', origin: 'null' }, want: 'origin_refused' }],
  [
    'another scheme',
    { given: { host: 'localhost', origin: 'ftp://localhost' }, want: 'origin_refused' },
  ],
  [
    'an origin with a path',
    { given: { host: 'localhost', origin: 'http://localhost/x' }, want: 'origin_refused' },
  ],
  [
    'a configured host on its port',
    {
      given: { host: 'gw.example.com:8443', options: { allowedHosts: ['gw.example.com:8443'] } },
      want: 'ok',
    },
  ],
  [
    'a configured host on another port',
    {
      given: { host: 'gw.example.com:9000', options: { allowedHosts: ['gw.example.com:8443'] } },
      want: 'host_refused',
    },
  ],
  [
    'loopback once a list is configured',
    {
      given: { host: 'localhost', options: { allowedHosts: ['gw.example.com'] } },
      want: 'host_refused',
    },
  ],
  [
    'a configured origin',
    {
      given: {
        host: 'gw.example.com',
        origin: 'https://app.example.com',
        options: { allowedHosts: ['gw.example.com'], allowedOrigins: ['https://app.example.com'] },
      },
      want: 'ok',
    },
  ],
];

describe('the DNS-rebinding guard', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    const guard = createOriginGuard(given.options);
    expect(guard(given.host, given.origin)).toBe(want);
  });

  it('gives every case the same verdict from one guard, in any order and again', () => {
    const guard = createOriginGuard();
    const loopback = cases.filter(([, { given }]) => given.options === undefined);
    for (const [, { given, want }] of [...loopback, ...loopback.reverse()]) {
      expect(guard(given.host, given.origin)).toBe(want);
    }
  });

  it('keeps verdicts apart for pairs a joined key would confuse', () => {
    const guard = createOriginGuard();
    const pairs: [string | undefined, string | undefined, string][] = [
      ['localhost:80', undefined, 'ok'],
      ['localhost', '80', 'origin_refused'],
      ['localhost', ':80', 'origin_refused'],
      ['localhost', '80:', 'origin_refused'],
      ['localhost:80', '', 'origin_refused'],
      [undefined, 'http://localhost', 'host_refused'],
      ['localhost:80', undefined, 'ok'],
    ];
    for (const [host, origin, want] of pairs) expect(guard(host, origin)).toBe(want);
  });

  it('refuses a malformed list entry when it is built', () => {
    expect(() => createOriginGuard({ allowedOrigins: ['localhost'] })).toThrow(TypeError);
    expect(() => createOriginGuard({ allowedHosts: ['host:port'] })).toThrow(TypeError);
  });
});
