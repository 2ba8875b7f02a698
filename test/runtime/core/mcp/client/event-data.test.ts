/** The data of server-sent events as the upstream client reads them. */
import { describe, expect, it } from 'vitest';
import { eventData } from '../../../../../runtime/core/mcp/client/mcp-reply.ts';

describe('eventData', () => {
  it.each<[string, { given: string; want: string[] }]>([
    ['one event', { given: 'event: message\ndata: {"a":1}\n\n', want: ['{"a":1}'] }],
    ['lines joined by LF', { given: 'data: a\ndata: b\n\n', want: ['a\nb'] }],
    ['CRLF and CR line ends', { given: 'data: a\r\n\r\ndata: b\r\r', want: ['a', 'b'] }],
    ['a comment', { given: ': keep-alive\n\ndata: x\n\n', want: ['x'] }],
    [
      'a priming event (an id, empty data) before the answer',
      { given: 'id: 1\ndata: \n\nevent: message\nid: 2\ndata: {"id":1}\n\n', want: ['{"id":1}'] },
    ],
    ['an event without its blank line', { given: 'data: last', want: ['last'] }],
  ])('%s', (_, { given, want }) => {
    expect(eventData(given)).toEqual(want);
  });
});
