/**
 * The request headers of the one MCP wire: what the forwarding client writes
 * is what the endpoint checks, and every header the wire owns is one an
 * operator may not set on a remote connection.
 */
import { describe, expect, it } from 'vitest';
import {
  METHOD_HEADER,
  NAME_HEADER,
  PARAM_HEADER_PREFIX,
  PROTOCOL_VERSION_HEADER,
  SESSION_HEADER,
} from '../../../../../runtime/core/mcp/wire/http-exchange.ts';
import { MODERN_VERSION } from '../../../../../runtime/core/mcp/wire/protocol-version.ts';
import {
  checkStandardHeaders,
  decodeHeaderValue,
  mirroredHeaders,
} from '../../../../../runtime/core/mcp/wire/standard-headers.ts';
import { assertHeaderNameAllowed } from '../../../../../runtime/core/sources/remote-mcp/remote-headers.ts';

describe('mirroredHeaders', () => {
  it.each<
    [string, { method: string; params: Record<string, unknown>; want: Record<string, string> }]
  >([
    [
      'an unnamed method',
      { method: 'tools/list', params: {}, want: { 'mcp-method': 'tools/list' } },
    ],
    [
      'a task of the tasks extension, by its id (a balancer routes on it)',
      {
        method: 'tasks/get',
        params: { taskId: 'pct1.abc_-' },
        want: { 'mcp-method': 'tasks/get', 'mcp-name': 'pct1.abc_-' },
      },
    ],
    [
      'a tool name in visible ASCII',
      {
        method: 'tools/call',
        params: { name: 'get_weather' },
        want: { 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' },
      },
    ],
    [
      'a prompt name outside ASCII, in the sentinel form',
      {
        method: 'prompts/get',
        params: { name: 'échec' },
        want: { 'mcp-method': 'prompts/get', 'mcp-name': '=?base64?w6ljaGVj?=' },
      },
    ],
    [
      'a resource URI',
      {
        method: 'resources/read',
        params: { uri: 'file:///a b' },
        want: { 'mcp-method': 'resources/read', 'mcp-name': 'file:///a b' },
      },
    ],
    [
      'a name with an edge space, in the sentinel form',
      {
        method: 'tools/call',
        params: { name: ' x' },
        want: { 'mcp-method': 'tools/call', 'mcp-name': '=?base64?IHg=?=' },
      },
    ],
    [
      'a name that looks like the sentinel form, encoded so it reads back as sent',
      {
        method: 'tools/call',
        params: { name: '=?base64?SGk=?=' },
        want: { 'mcp-method': 'tools/call', 'mcp-name': '=?base64?PT9iYXNlNjQ/U0drPT89?=' },
      },
    ],
    [
      'a name that is not a string is not mirrored',
      { method: 'tools/call', params: { name: 7 }, want: { 'mcp-method': 'tools/call' } },
    ],
  ])('%s', (_, { method, params, want }) => {
    const written = mirroredHeaders(method, params);
    expect(written).toEqual(want);
    if (typeof written[NAME_HEADER] === 'string')
      expect(decodeHeaderValue(written[NAME_HEADER])).toBe(
        params.name ?? params.uri ?? params.taskId,
      );
  });

  it.each([
    ['tools/call', { name: 'ünïcode\ttab' }],
    ['prompts/get', { name: '=?base64?looks-encoded?=' }],
    ['resources/read', { uri: 'ui://x/😀' }],
    ['tasks/cancel', { taskId: 'a task id, with spaces' }],
    ['ping', {}],
  ])('what the client writes for %s passes the endpoint', (method, params) => {
    const headers = {
      [PROTOCOL_VERSION_HEADER]: MODERN_VERSION,
      ...mirroredHeaders(method, params),
    };
    expect(() => checkStandardHeaders(headers, method, params, MODERN_VERSION)).not.toThrow();
  });
});

describe('the wire owns its headers', () => {
  it.each([
    SESSION_HEADER,
    PROTOCOL_VERSION_HEADER,
    METHOD_HEADER,
    NAME_HEADER,
    `${PARAM_HEADER_PREFIX}region`,
  ])('%s is refused as a connection header', (name) => {
    expect(() => assertHeaderNameAllowed(name, 'headers')).toThrow(
      expect.objectContaining({ code: 'header_refused' }),
    );
  });
});
