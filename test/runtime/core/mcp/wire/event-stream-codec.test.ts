/** Server-sent events as the upstream client reads them: the wire's decoder, whole and chunk by chunk. */
import { describe, expect, it } from 'vitest';
import {
  EventStreamReader,
  eventData,
  messageEvent,
  type ServerSentEvent,
} from '../../../../../runtime/core/mcp/wire/event-stream-codec.ts';

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
    ['a field without a colon', { given: 'data\ndata: b\n\n', want: ['\nb'] }],
    ['only the first space is dropped', { given: 'data:  two\n\n', want: [' two'] }],
  ])('%s', (_, { given, want }) => {
    expect(eventData(given)).toEqual(want);
  });
});

/** Every way of cutting `text` into two chunks, and byte by byte. */
function chunkings(text: string): Uint8Array[][] {
  const bytes = new TextEncoder().encode(text);
  const ways: Uint8Array[][] = [];
  for (let cut = 0; cut <= bytes.length; cut++) ways.push([bytes.slice(0, cut), bytes.slice(cut)]);
  ways.push([...bytes].map((byte) => Uint8Array.of(byte)));
  return ways;
}

function readAll(chunks: Uint8Array[]): ServerSentEvent[] {
  const reader = new EventStreamReader();
  return [...chunks.flatMap((chunk) => reader.push(chunk)), ...reader.end()];
}

describe('EventStreamReader', () => {
  it.each<[string, { given: string; want: ServerSentEvent[] }]>([
    [
      'named and unnamed events',
      {
        given: 'event: endpoint\ndata: /messages?s=1\n\ndata: {"id":1}\n\n',
        want: [
          { event: 'endpoint', data: '/messages?s=1' },
          { event: '', data: '{"id":1}' },
        ],
      },
    ],
    [
      'a CRLF cut between its CR and its LF',
      { given: 'data: a\r\ndata: b\r\n\r\n', want: [{ event: '', data: 'a\nb' }] },
    ],
    [
      'a named event with empty data carries nothing',
      { given: 'event: endpoint\ndata:\n\ndata: x\n\n', want: [{ event: '', data: 'x' }] },
    ],
    [
      'UTF-8 cut inside a character',
      { given: 'data: "é✓😀"\n\n', want: [{ event: '', data: '"é✓😀"' }] },
    ],
  ])('%s, however it is cut', (_, { given, want }) => {
    for (const chunks of chunkings(given)) expect(readAll(chunks)).toEqual(want);
  });

  it('reads what the endpoint writes', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { text: 'two\nlines' } };
    expect(eventData(messageEvent(message)).map((data) => JSON.parse(data))).toEqual([message]);
  });
});
