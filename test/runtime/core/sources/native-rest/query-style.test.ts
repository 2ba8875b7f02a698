import { describe, expect, it } from 'vitest';
import type {
  ParameterSpec,
  StyledParameterSpec,
} from '../../../../../generated/catalog-format.ts';
import { buildRestRequest } from '../../../../../runtime/core/sources/native-rest/build-request.ts';
import { queryParameter, syntheticAction } from '../../../../support/rest-actions.ts';

type Case = [
  string,
  { given: { parameters: ParameterSpec[]; query: Record<string, unknown> }; want: string },
];

const color = (serialization: Partial<StyledParameterSpec>) => [
  queryParameter('color', serialization),
];
const blue = 'blue';
const colors = ['blue', 'black', 'brown'];
const rgb = { R: 100, G: 200, B: 150 };

// OpenAPI 3 style examples (the specification's `color` table), plus encoding edges.
const cases: Case[] = [
  [
    'form, explode, primitive',
    { given: { parameters: color({}), query: { color: blue } }, want: 'color=blue' },
  ],
  [
    'form, explode, array',
    {
      given: { parameters: color({}), query: { color: colors } },
      want: 'color=blue&color=black&color=brown',
    },
  ],
  [
    'form, explode, object spreads key=value',
    { given: { parameters: color({}), query: { color: rgb } }, want: 'R=100&G=200&B=150' },
  ],
  [
    'form, no explode, primitive',
    {
      given: { parameters: color({ explode: false }), query: { color: blue } },
      want: 'color=blue',
    },
  ],
  [
    'form, no explode, array joins with commas',
    {
      given: { parameters: color({ explode: false }), query: { color: colors } },
      want: 'color=blue,black,brown',
    },
  ],
  [
    'form, no explode, object',
    {
      given: { parameters: color({ explode: false }), query: { color: rgb } },
      want: 'color=R,100,G,200,B,150',
    },
  ],
  [
    'form, no explode, a comma inside an item is encoded',
    {
      given: { parameters: color({ explode: false }), query: { color: ['a,b', 'c'] } },
      want: 'color=a%2Cb,c',
    },
  ],
  [
    'spaceDelimited, no explode, array',
    {
      given: {
        parameters: color({ style: 'spaceDelimited', explode: false }),
        query: { color: colors },
      },
      want: 'color=blue%20black%20brown',
    },
  ],
  [
    'spaceDelimited, explode, array',
    {
      given: {
        parameters: color({ style: 'spaceDelimited', explode: true }),
        query: { color: colors },
      },
      want: 'color=blue&color=black&color=brown',
    },
  ],
  [
    'spaceDelimited, no explode, object',
    {
      given: {
        parameters: color({ style: 'spaceDelimited', explode: false }),
        query: { color: rgb },
      },
      want: 'color=R%20100%20G%20200%20B%20150',
    },
  ],
  [
    'pipeDelimited, no explode, array',
    {
      given: {
        parameters: color({ style: 'pipeDelimited', explode: false }),
        query: { color: colors },
      },
      want: 'color=blue|black|brown',
    },
  ],
  [
    'pipeDelimited, a pipe inside an item is encoded',
    {
      given: {
        parameters: color({ style: 'pipeDelimited', explode: false }),
        query: { color: ['a|b', 'c'] },
      },
      want: 'color=a%7Cb|c',
    },
  ],
  [
    'pipeDelimited, explode, array',
    {
      given: {
        parameters: color({ style: 'pipeDelimited', explode: true }),
        query: { color: colors },
      },
      want: 'color=blue&color=black&color=brown',
    },
  ],
  [
    'deepObject',
    {
      given: { parameters: color({ style: 'deepObject', explode: true }), query: { color: rgb } },
      want: 'color[R]=100&color[G]=200&color[B]=150',
    },
  ],
  [
    'deepObject, nested object',
    {
      given: {
        parameters: color({ style: 'deepObject', explode: true }),
        query: { color: { a: { b: 'x y' } } },
      },
      want: 'color[a][b]=x%20y',
    },
  ],
  [
    'deepObject, keys are encoded',
    {
      given: {
        parameters: color({ style: 'deepObject', explode: true }),
        query: { color: { 'a]b': 1 } },
      },
      want: 'color[a%5Db]=1',
    },
  ],
  [
    'content-encoded (JSON) parameter',
    {
      given: {
        parameters: [
          { name: 'where', in: 'query', required: false, contentType: 'application/json' },
        ],
        query: { where: { age: 3 } },
      },
      want: 'where=%7B%22age%22%3A3%7D',
    },
  ],
  [
    'reserved characters are encoded by default',
    {
      given: { parameters: color({}), query: { color: 'a/b?c:d@e&f=g h' } },
      want: 'color=a%2Fb%3Fc%3Ad%40e%26f%3Dg%20h',
    },
  ],
  [
    'sub-delims encodeURIComponent keeps are encoded too',
    { given: { parameters: color({}), query: { color: "!'()*" } }, want: 'color=%21%27%28%29%2A' },
  ],
  [
    'allowReserved keeps reserved characters',
    {
      given: { parameters: color({ allowReserved: true }), query: { color: 'a/b?c:d@e,f;g=h' } },
      want: 'color=a/b?c:d@e,f;g=h',
    },
  ],
  [
    'allowReserved still encodes # and spaces',
    {
      given: { parameters: color({ allowReserved: true }), query: { color: 'a#b c' } },
      want: 'color=a%23b%20c',
    },
  ],
  [
    'non-ASCII is UTF-8 percent-encoded',
    { given: { parameters: color({}), query: { color: 'grün' } }, want: 'color=gr%C3%BCn' },
  ],
  [
    'numbers and booleans',
    {
      given: {
        parameters: [queryParameter('count'), queryParameter('details')],
        query: { count: 10, details: false },
      },
      want: 'count=10&details=false',
    },
  ],
  [
    'declaration order, not argument order',
    {
      given: { parameters: [queryParameter('a'), queryParameter('b')], query: { b: 2, a: 1 } },
      want: 'a=1&b=2',
    },
  ],
  ['an empty array', { given: { parameters: color({}), query: { color: [] } }, want: 'color=' }],
  [
    'null is an empty value',
    { given: { parameters: color({}), query: { color: null } }, want: 'color=' },
  ],
  ['an absent parameter is left out', { given: { parameters: color({}), query: {} }, want: '' }],
  [
    'an argument with no declared parameter is left out',
    { given: { parameters: color({}), query: { other: 'x' } }, want: '' },
  ],
];

describe('query serialization', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    const action = syntheticAction({ parameters: given.parameters });
    const built = buildRestRequest(action, { query: given.query }, { settings: {} });
    expect(built.url.search.replace(/^\?/, '')).toBe(want);
    expect(built.url.pathname).toBe('/items');
  });
});
