import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import { AddressRefusedError } from '../../../../runtime/core/outbound/address-policy.ts';
import { classifyFailure } from '../../../../runtime/core/outbound/outbound-errors.ts';
import { Redactor } from '../../../../runtime/core/outbound/redaction.ts';

function withCode(code: string): Error {
  return Object.assign(new Error(`failed: ${code}`), { code });
}

type Case = [
  string,
  {
    given: { error: Error; requestSent: boolean };
    want: { code: string; phase: string; requestSent: boolean } | 'TypeError';
  },
];

// Failures that are hard to cause on loopback without timing (a connect timeout,
// a malformed reply) are checked at the mapping; the rest run against real servers.
const cases: Case[] = [
  [
    'connect timeout',
    {
      given: { error: withCode('UND_ERR_CONNECT_TIMEOUT'), requestSent: false },
      want: { code: 'upstream_timeout', phase: 'connect', requestSent: false },
    },
  ],
  [
    'headers timeout',
    {
      given: { error: withCode('UND_ERR_HEADERS_TIMEOUT'), requestSent: true },
      want: { code: 'upstream_timeout', phase: 'reply', requestSent: true },
    },
  ],
  [
    'body timeout',
    {
      given: { error: withCode('UND_ERR_BODY_TIMEOUT'), requestSent: true },
      want: { code: 'upstream_timeout', phase: 'reply', requestSent: true },
    },
  ],
  [
    'connection refused',
    {
      given: { error: withCode('ECONNREFUSED'), requestSent: false },
      want: { code: 'upstream_unreachable', phase: 'connect', requestSent: false },
    },
  ],
  [
    'DNS failure',
    {
      given: { error: withCode('ENOTFOUND'), requestSent: false },
      want: { code: 'upstream_unreachable', phase: 'connect', requestSent: false },
    },
  ],
  [
    'TLS name mismatch',
    {
      given: { error: withCode('ERR_TLS_CERT_ALTNAME_INVALID'), requestSent: false },
      want: { code: 'upstream_unreachable', phase: 'connect', requestSent: false },
    },
  ],
  [
    'socket closed after sending',
    {
      given: { error: withCode('UND_ERR_SOCKET'), requestSent: true },
      want: { code: 'upstream_unreachable', phase: 'reply', requestSent: true },
    },
  ],
  [
    'a reply that is not HTTP',
    {
      given: { error: withCode('HPE_INVALID_CONSTANT'), requestSent: true },
      want: { code: 'upstream_reply_invalid', phase: 'reply', requestSent: true },
    },
  ],
  [
    'a refused address',
    {
      given: { error: new AddressRefusedError('private'), requestSent: false },
      want: { code: 'upstream_address_refused', phase: 'connect', requestSent: false },
    },
  ],
  [
    'an argument undici rejects',
    { given: { error: withCode('UND_ERR_INVALID_ARG'), requestSent: false }, want: 'TypeError' },
  ],
];

describe('classifyFailure', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    const error = classifyFailure(given.error, {
      method: 'POST',
      url: new URL('https://api.example.test/v1/things'),
      redactor: new Redactor([]),
      requestSent: given.requestSent,
    });
    if (want === 'TypeError') {
      expect(error).toBeInstanceOf(TypeError);
      return;
    }
    expect(error).toBeInstanceOf(GatewayError);
    const gateway = error as GatewayError;
    expect({
      code: gateway.code,
      phase: gateway.detail?.phase,
      requestSent: gateway.detail?.requestSent,
    }).toEqual(want);
  });
});
