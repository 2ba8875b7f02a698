/** What a review shows of a changed remote tool: texts word by word, schemas and annotations by JSON pointer. */
import { describe, expect, it } from 'vitest';
import { contractChangeLines } from '../../../../../runtime/adapters/cli/contract-change-text.ts';
import type { RemoteToolContract } from '../../../../../runtime/core/model/remote.ts';
import {
  contractChanges,
  valueDiff,
} from '../../../../../runtime/core/sources/remote-mcp/contract-diff.ts';

const base: RemoteToolContract = {
  name: 'get_weather',
  description: 'Reports the weather of a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  annotations: { readOnlyHint: true },
};

describe('valueDiff', () => {
  it.each<[string, { given: [unknown, unknown]; want: ReturnType<typeof valueDiff> }]>([
    ['equal values', { given: [{ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }], want: [] }],
    [
      'a changed leaf',
      { given: [{ a: 1 }, { a: 2 }], want: [{ pointer: '/a', before: 1, after: 2 }] },
    ],
    ['an added key', { given: [{}, { a: 1 }], want: [{ pointer: '/a', after: 1 }] }],
    ['a removed key', { given: [{ a: 1 }, {}], want: [{ pointer: '/a', before: 1 }] }],
    ['an appended item', { given: [[1], [1, 2]], want: [{ pointer: '/1', after: 2 }] }],
    [
      'a key that needs escaping',
      { given: [{ 'a/b~': 1 }, {}], want: [{ pointer: '/a~1b~0', before: 1 }] },
    ],
    [
      'an object become an array',
      { given: [{}, []], want: [{ pointer: '', before: {}, after: [] }] },
    ],
    [
      'keys in code-unit order',
      {
        given: [
          { b: 1, a: 1 },
          { a: 2, b: 2 },
        ],
        want: [
          { pointer: '/a', before: 1, after: 2 },
          { pointer: '/b', before: 1, after: 2 },
        ],
      },
    ],
  ])('%s', (_, { given, want }) => {
    expect(valueDiff(...given)).toEqual(want);
  });
});

describe('contractChanges', () => {
  it('names a schema change by pointer and an annotation flip, and leaves what did not change out', () => {
    const after: RemoteToolContract = {
      ...base,
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, wipe: { type: 'boolean' } },
        required: ['city', 'wipe'],
      },
      annotations: { readOnlyHint: false, destructiveHint: true },
    };
    const changes = contractChanges(base, after);
    expect(changes.map((c) => [c.field, c.diff])).toEqual([
      [
        'inputSchema',
        [
          { pointer: '/properties/wipe', after: { type: 'boolean' } },
          { pointer: '/required/1', after: 'wipe' },
        ],
      ],
      [
        'annotations',
        [
          { pointer: '/destructiveHint', after: true },
          { pointer: '/readOnlyHint', before: true, after: false },
        ],
      ],
    ]);
    expect(contractChangeLines(changes, '')).toEqual([
      'inputSchema /properties/wipe: added {"type":"boolean"}',
      'inputSchema /required/1: added "wipe"',
      'annotations /destructiveHint: added true',
      'annotations /readOnlyHint: true → false',
    ]);
  });

  it('shows a title that appeared, and an output schema that went', () => {
    const before = { ...base, outputSchema: { type: 'object' } };
    const changes = contractChanges(before, { ...base, title: 'Weather' });
    expect(contractChangeLines(changes, '')).toEqual([
      'title: {+Weather+}',
      'outputSchema /: removed (was {"type":"object"})',
    ]);
  });
});
