import { describe, expect, it } from 'vitest';
import type { StyledParameterSpec } from '../../../../../generated/catalog-format.ts';
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import { buildRestRequest } from '../../../../../runtime/core/sources/native-rest/build-request.ts';
import { pathParameter, syntheticAction } from '../../../../support/rest-actions.ts';

function build(value: unknown, serialization: Partial<StyledParameterSpec> = {}, name = 'id') {
  const action = syntheticAction({
    path: `/items/{${name}}/detail`,
    parameters: [pathParameter(name, serialization)],
  });
  return buildRestRequest(action, { path: { [name]: value } }, { settings: {} });
}

type Refusal = [
  string,
  { given: unknown; want: { code: 'path_parameter_refused'; field: string } },
];
const refused = (field = '/path/id') => ({ code: 'path_parameter_refused' as const, field });

const traversal: Refusal[] = [
  ['dot', { given: '.', want: refused() }],
  ['dot dot', { given: '..', want: refused() }],
  ['empty', { given: '', want: refused() }],
  ['slash', { given: 'a/b', want: refused() }],
  ['leading slash', { given: '/etc', want: refused() }],
  ['backslash', { given: 'a\\b', want: refused() }],
  ['dot dot slash', { given: '../admin', want: refused() }],
  ['encoded dot dot', { given: '%2e%2e', want: refused() }],
  ['encoded dot dot, upper case', { given: '%2E%2E', want: refused() }],
  ['half-encoded dot dot', { given: '.%2e', want: refused() }],
  ['encoded dot', { given: '%2e', want: refused() }],
  ['encoded slash', { given: 'a%2fb', want: refused() }],
  ['encoded slash, upper case', { given: 'a%2Fb', want: refused() }],
  ['encoded backslash', { given: '%5c', want: refused() }],
  ['double-encoded slash', { given: '%252f', want: refused() }],
  ['double-encoded dot dot', { given: '%252e%252e', want: refused() }],
  ['triple-encoded dot', { given: '%25252e', want: refused() }],
  ['four layers of encoding', { given: '%2525252f', want: refused() }],
  ['overlong UTF-8 dot', { given: '%c0%ae%c0%ae', want: refused() }],
  ['fullwidth dots (NFKC ..)', { given: '\uff0e\uff0e', want: refused() }],
  ['fullwidth solidus (NFKC /)', { given: 'a\uff0fb', want: refused() }],
  ['dot dot with a path parameter (..;)', { given: '..;', want: refused() }],
  ['NUL', { given: 'a\u0000b', want: refused() }],
  ['line feed', { given: 'a\nb', want: refused() }],
  ['encoded NUL', { given: 'a%00b', want: refused() }],
  ['DEL', { given: 'a\u007f', want: refused() }],
  [
    'an object where text belongs, inside a list',
    { given: [{ a: 1 }], want: refused('/path/id/0') },
  ],
  ['dot dot inside a list', { given: ['a', '..'], want: refused('/path/id/1') }],
  ['an empty list', { given: [], want: refused() }],
];

describe('path parameters: values that could leave their segment', () => {
  it.each(traversal)('%s is refused', (_name, { given, want }) => {
    let caught: unknown;
    try {
      build(given);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect({ code: (caught as GatewayError).code, field: (caught as GatewayError).field }).toEqual(
      want,
    );
  });

  it('a missing required value is refused with its field', () => {
    const action = syntheticAction({ path: '/items/{id}', parameters: [pathParameter('id')] });
    expect(() => buildRestRequest(action, {}, { settings: {} })).toThrowError(
      expect.objectContaining({ code: 'path_parameter_refused', field: '/path/id' }),
    );
  });
});

type Encoding = [
  string,
  { given: { value: unknown; serialization?: Partial<StyledParameterSpec> }; want: string },
];

const encoding: Encoding[] = [
  ['plain identifier', { given: { value: 'abc-123_x~' }, want: 'abc-123_x~' }],
  [
    'UUID',
    {
      given: { value: '123e4567-e89b-12d3-a456-426614174000' },
      want: '123e4567-e89b-12d3-a456-426614174000',
    },
  ],
  ['number', { given: { value: 42 }, want: '42' }],
  ['space', { given: { value: 'a b' }, want: 'a%20b' }],
  ['dots inside a name', { given: { value: 'my.app..v2' }, want: 'my.app..v2' }],
  ['question mark and hash', { given: { value: 'a?b#c' }, want: 'a%3Fb%23c' }],
  ['semicolon and equals', { given: { value: 'a;b=c' }, want: 'a%3Bb%3Dc' }],
  ['quote and parentheses', { given: { value: "it's(1)" }, want: 'it%27s%281%29' }],
  ['a lone percent sign', { given: { value: '100%' }, want: '100%25' }],
  ['non-ASCII', { given: { value: 'ü' }, want: '%C3%BC' }],
  ['simple array', { given: { value: [1, 2, 3] }, want: '1,2,3' }],
  [
    'simple array, explode',
    { given: { value: [1, 2, 3], serialization: { explode: true } }, want: '1,2,3' },
  ],
  ['simple object', { given: { value: { a: 1, b: 2 } }, want: 'a,1,b,2' }],
  [
    'simple object, explode',
    { given: { value: { a: 1, b: 2 }, serialization: { explode: true } }, want: 'a=1,b=2' },
  ],
  ['label primitive', { given: { value: 5, serialization: { style: 'label' } }, want: '.5' }],
  ['label array', { given: { value: [1, 2], serialization: { style: 'label' } }, want: '.1,2' }],
  [
    'label array, explode',
    { given: { value: [1, 2], serialization: { style: 'label', explode: true } }, want: '.1.2' },
  ],
  [
    'label object, explode',
    {
      given: { value: { a: 1, b: 2 }, serialization: { style: 'label', explode: true } },
      want: '.a=1.b=2',
    },
  ],
  ['matrix primitive', { given: { value: 5, serialization: { style: 'matrix' } }, want: ';id=5' }],
  [
    'matrix array',
    { given: { value: [1, 2], serialization: { style: 'matrix' } }, want: ';id=1,2' },
  ],
  [
    'matrix array, explode',
    {
      given: { value: [1, 2], serialization: { style: 'matrix', explode: true } },
      want: ';id=1;id=2',
    },
  ],
  [
    'matrix object',
    { given: { value: { a: 1 }, serialization: { style: 'matrix' } }, want: ';id=a,1' },
  ],
  [
    'matrix object, explode',
    {
      given: { value: { a: 1, b: 2 }, serialization: { style: 'matrix', explode: true } },
      want: ';a=1;b=2',
    },
  ],
  ['list items are encoded one by one', { given: { value: ['a,b', 'c d'] }, want: 'a%2Cb,c%20d' }],
];

describe('path parameters: serialization and encoding', () => {
  it.each(encoding)('%s', (_name, { given, want }) => {
    const built = build(given.value, given.serialization);
    expect(built.url.pathname).toBe(`/items/${want}/detail`);
  });

  it('the style-explode fixture: label, explode on integers', () => {
    const action = syntheticAction({
      path: '/search/{ids}',
      parameters: [pathParameter('ids', { style: 'label', explode: true })],
    });
    const built = buildRestRequest(action, { path: { ids: [3, 4, 5] } }, { settings: {} });
    expect(built.url.href).toBe('https://api.example.test/search/.3.4.5');
  });
});
