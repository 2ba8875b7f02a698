import { describe, expect, it } from 'vitest';
import {
  classifyMessage,
  type IncomingMessage,
} from '../../../../../runtime/core/mcp/wire/json-rpc.ts';

/** What a message is classified as; an invalid one also says why (text, not asserted). */
type Want =
  | Exclude<IncomingMessage, { kind: 'invalid' }>
  | Omit<Extract<IncomingMessage, { kind: 'invalid' }>, 'why'>;
type Case = [string, { given: unknown; want: Want }];

const cases: Case[] = [
  [
    'a request',
    {
      given: { jsonrpc: '2.0', id: 7, method: 'ping' },
      want: { kind: 'request', id: 7, method: 'ping', params: undefined },
    },
  ],
  [
    'a request with a string id and params',
    {
      given: { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { cursor: 'x' } },
      want: { kind: 'request', id: 'a', method: 'tools/list', params: { cursor: 'x' } },
    },
  ],
  [
    'a notification',
    {
      given: { jsonrpc: '2.0', method: 'notifications/initialized' },
      want: { kind: 'notification', method: 'notifications/initialized', params: undefined },
    },
  ],
  [
    'a result',
    {
      given: { jsonrpc: '2.0', id: 1, result: {} },
      want: { kind: 'response', id: 1, result: {} },
    },
  ],
  [
    'an error reply',
    {
      given: { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } },
      want: { kind: 'response', id: 1, error: { code: 1, message: 'x' } },
    },
  ],
  ['no jsonrpc member', { given: { id: 3, method: 'ping' }, want: { kind: 'invalid', id: 3 } }],
  [
    'JSON-RPC 1.0',
    { given: { jsonrpc: '1.0', id: 3, method: 'ping' }, want: { kind: 'invalid', id: 3 } },
  ],
  [
    'a null id',
    { given: { jsonrpc: '2.0', id: null, method: 'ping' }, want: { kind: 'invalid', id: null } },
  ],
  [
    'a fractional id',
    { given: { jsonrpc: '2.0', id: 1.5, method: 'ping' }, want: { kind: 'invalid', id: null } },
  ],
  [
    'a method that is not a string',
    { given: { jsonrpc: '2.0', id: 2, method: 5 }, want: { kind: 'invalid', id: 2 } },
  ],
  [
    'params that are not an object',
    {
      given: { jsonrpc: '2.0', id: 2, method: 'ping', params: [1] },
      want: { kind: 'invalid', id: 2 },
    },
  ],
  ['a string', { given: 'ping', want: { kind: 'invalid', id: null } }],
  ['null', { given: null, want: { kind: 'invalid', id: null } }],
  ['nothing', { given: undefined, want: { kind: 'invalid', id: null } }],
];

describe('JSON-RPC message classification', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    const got = classifyMessage(given);
    if (got.kind !== 'invalid') return expect(got).toEqual(want);
    const { why, ...rest } = got;
    expect(rest).toEqual(want);
    expect(why).toEqual(expect.any(String));
  });
});
