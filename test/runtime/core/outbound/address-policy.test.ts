import { describe, expect, it } from 'vitest';
import { refusedRange } from '../../../../runtime/core/outbound/address-policy.ts';

type Case = [
  string,
  { given: string; want: { strict: string | undefined; dev: string | undefined } },
];

const allowed = { strict: undefined, dev: undefined };
const privateOnly = (range: string) => ({ strict: range, dev: undefined });
const never = (range: string) => ({ strict: range, dev: range });

const cases: Case[] = [
  ['public IPv4', { given: '93.184.216.34', want: allowed }],
  ['public IPv6', { given: '2606:2800:220:1:248:1893:25c8:1946', want: allowed }],
  ['IPv4 loopback', { given: '127.0.0.1', want: privateOnly('loopback') }],
  ['IPv4 loopback, anywhere in 127/8', { given: '127.200.0.9', want: privateOnly('loopback') }],
  ['IPv6 loopback', { given: '::1', want: privateOnly('loopback') }],
  ['RFC 1918 10/8', { given: '10.0.0.1', want: privateOnly('private') }],
  ['RFC 1918 172.16/12', { given: '172.31.255.255', want: privateOnly('private') }],
  ['RFC 1918 192.168/16', { given: '192.168.1.1', want: privateOnly('private') }],
  ['link-local (cloud metadata)', { given: '169.254.169.254', want: privateOnly('linkLocal') }],
  ['IPv6 link-local', { given: 'fe80::1', want: privateOnly('linkLocal') }],
  ['IPv6 unique-local', { given: 'fd00::1', want: privateOnly('uniqueLocal') }],
  ['CGNAT', { given: '100.64.0.1', want: privateOnly('carrierGradeNat') }],
  ['reserved (TEST-NET-3)', { given: '203.0.113.5', want: privateOnly('reserved') }],
  ['reserved (240/4)', { given: '240.0.0.1', want: privateOnly('reserved') }],
  ['IPv4-mapped IPv6 of loopback', { given: '::ffff:127.0.0.1', want: privateOnly('ipv4Mapped') }],
  [
    'IPv4-mapped IPv6 of a public address',
    { given: '::ffff:93.184.216.34', want: privateOnly('ipv4Mapped') },
  ],
  ['NAT64 prefix', { given: '64:ff9b::7f00:1', want: privateOnly('rfc6052') }],
  ['6to4', { given: '2002:7f00:1::', want: privateOnly('6to4') }],
  // IPv6 forms that embed an IPv4 address are judged by that address too.
  ['IPv4-compatible of loopback', { given: '::7f00:1', want: privateOnly('loopback') }],
  ['IPv4-compatible, bracketed', { given: '[::7f00:1]', want: privateOnly('loopback') }],
  ['IPv4-compatible of link-local', { given: '::a9fe:a9fe', want: privateOnly('linkLocal') }],
  ['IPv4-compatible of private', { given: '::a00:1', want: privateOnly('private') }],
  ['IPv4-compatible of multicast', { given: '::e000:1', want: never('multicast') }],
  ['IPv4-compatible of broadcast', { given: '::ffff:ffff', want: never('broadcast') }],
  ['IPv4-compatible of a public address', { given: '::5db8:d822', want: allowed }],
  [
    'IPv4-mapped of broadcast',
    { given: '::ffff:255.255.255.255', want: { strict: 'ipv4Mapped', dev: 'broadcast' } },
  ],
  [
    'IPv4-translated of multicast',
    { given: '::ffff:0:224.0.0.1', want: { strict: 'rfc6145', dev: 'multicast' } },
  ],
  [
    'NAT64 of multicast',
    { given: '64:ff9b::224.0.0.1', want: { strict: 'rfc6052', dev: 'multicast' } },
  ],
  [
    'local-use NAT64 (/96) of multicast',
    { given: '64:ff9b:1::e000:1', want: { strict: 'rfc6052', dev: 'multicast' } },
  ],
  [
    'local-use NAT64 (/48) of broadcast',
    { given: '64:ff9b:1:ffff:ff:ff00:5db8:d822', want: { strict: 'rfc6052', dev: 'broadcast' } },
  ],
  ['6to4 of unspecified', { given: '2002:0:1::', want: { strict: '6to4', dev: 'unspecified' } }],
  ['6to4 of broadcast', { given: '2002:ffff:ffff::1', want: { strict: '6to4', dev: 'broadcast' } }],
  [
    'Teredo of a multicast client (inverted)',
    { given: '2001:0:4136:e378:8000:63bf:1fff:fffe', want: { strict: 'teredo', dev: 'multicast' } },
  ],
  [
    'Teredo of a public client',
    { given: '2001:0:4136:e378:8000:63bf:a247:27dd', want: privateOnly('teredo') },
  ],
  ['bracketed IPv6 literal', { given: '[::1]', want: privateOnly('loopback') }],
  ['unspecified IPv4', { given: '0.0.0.0', want: never('unspecified') }],
  ['unspecified IPv6', { given: '::', want: never('unspecified') }],
  ['broadcast', { given: '255.255.255.255', want: never('broadcast') }],
  ['IPv4 multicast', { given: '224.0.0.1', want: never('multicast') }],
  ['IPv6 multicast', { given: 'ff02::1', want: never('multicast') }],
  ['not an address', { given: 'example.com', want: never('not_an_address') }],
];

describe('refusedRange', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(refusedRange(given, { allowPrivateNetworks: false })).toBe(want.strict);
    expect(refusedRange(given, { allowPrivateNetworks: true })).toBe(want.dev);
  });
});
