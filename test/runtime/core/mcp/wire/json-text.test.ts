import { describe, expect, it } from 'vitest';
import { stringifyMessage, withJsonText } from '../../../../../runtime/core/mcp/wire/json-text.ts';

const tools = () => [
  { name: 'a', inputSchema: { type: 'object' } },
  { name: 'b "quoted"', inputSchema: { type: 'object' } },
];

describe('stringifyMessage', () => {
  it.each<[string, { given: unknown }]>([
    [
      'a result with a marked tool list',
      { given: { jsonrpc: '2.0', id: 7, result: { tools: withJsonText(tools()) } } },
    ],
    [
      'a string id',
      { given: { jsonrpc: '2.0', id: 'x"y', result: { tools: withJsonText(tools()) } } },
    ],
    ['an unmarked tool list', { given: { jsonrpc: '2.0', id: 1, result: { tools: tools() } } }],
    [
      'a result with more than the tools',
      {
        given: { jsonrpc: '2.0', id: 1, result: { tools: withJsonText(tools()), nextCursor: 'c' } },
      },
    ],
    ['an error', { given: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no' } } }],
    [
      'a marked structured result beside members JSON.stringify leaves out',
      {
        given: {
          jsonrpc: '2.0',
          id: 2,
          result: {
            content: [{ type: 'text', text: '{"a":1}' }],
            isError: undefined,
            structuredContent: withJsonText({ a: 1, 'b"': [null] }),
          },
        },
      },
    ],
  ])('writes exactly what JSON.stringify writes: %s', (_name, { given }) => {
    expect(stringifyMessage(given)).toBe(JSON.stringify(given));
  });

  it('splices the text it was marked with instead of serialising again', () => {
    const list = withJsonText(tools());
    list.push({ name: 'added later', inputSchema: { type: 'object' } });
    expect(stringifyMessage({ jsonrpc: '2.0', id: 1, result: { tools: list } })).not.toContain(
      'added later',
    );
  });

  it('splices a provider reply as the provider wrote it', () => {
    const text = '{ "user": "u1",\n  "quotas": [1, 2.50] }';
    const structured = withJsonText(JSON.parse(text) as object, text);
    const message = {
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text }], structuredContent: structured },
    };
    const written = stringifyMessage(message);
    expect(written).toContain(`"structuredContent":${text}}`);
    expect(JSON.parse(written)).toEqual(message);
  });
});
