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
  ['dot dot slash', { given: '../admin', want: refused() }],
  ['dot dot between slashes', { given: 'a/../b', want: refused() }],
  ['dot between slashes', { given: 'a/./b', want: refused() }],
  ['a trailing dot dot', { given: 'arn:aws:x:us-east-1:123456789012:portal/..', want: refused() }],
  ['dot dot before a backslash', { given: '..\\admin', want: refused() }],
  ['dot dot and an encoded slash', { given: '..%2fadmin', want: refused() }],
  ['four layers of encoding', { given: '%2525252e', want: refused() }],
  ['IIS %u dots', { given: '%u002e%u002e', want: refused() }],
  ['fullwidth solidus around dot dot', { given: 'a\uff0f..\uff0fb', want: refused() }],
  ['encoded dot dot', { given: '%2e%2e', want: refused() }],
  ['encoded dot dot, upper case', { given: '%2E%2E', want: refused() }],
  ['half-encoded dot dot', { given: '.%2e', want: refused() }],
  ['encoded dot', { given: '%2e', want: refused() }],
  ['double-encoded dot dot', { given: '%252e%252e', want: refused() }],
  ['triple-encoded dot', { given: '%25252e', want: refused() }],
  ['overlong UTF-8 dot', { given: '%c0%ae%c0%ae', want: refused() }],
  ['fullwidth dots (NFKC ..)', { given: '\uff0e\uff0e', want: refused() }],
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
  ['an empty list item', { given: ['a', ''], want: refused('/path/id/1') }],
];

type Combined = [
  string,
  { given: { value: unknown; serialization: Partial<StyledParameterSpec> }; want: string },
];

/** Steps made by a label's dot, by items that meet, or by one item of a list. */
const combined: Combined[] = [
  [
    'a label dot and a leading slash',
    { given: { value: '/x', serialization: { style: 'label' } }, want: '/path/id' },
  ],
  [
    'label items that meet at a dot',
    {
      given: { value: ['a/', '/b'], serialization: { style: 'label', explode: true } },
      want: '/path/id',
    },
  ],
  [
    'a list item that ends in a dot step',
    { given: { value: ['a/.', '/b'], serialization: {} }, want: '/path/id/0' },
  ],
];

describe('path parameters: values that could step out of the path', () => {
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

  it.each(combined)('%s is refused', (_name, { given, want }) => {
    expect(() => build(given.value, given.serialization)).toThrowError(
      expect.objectContaining({ code: 'path_parameter_refused', field: want }),
    );
  });

  it('a value that makes a step with the text around its placeholder is refused', () => {
    const action = syntheticAction({
      path: '/items/.{id}',
      parameters: [pathParameter('id')],
    });
    expect(() => buildRestRequest(action, { path: { id: '/x' } }, { settings: {} })).toThrowError(
      expect.objectContaining({ code: 'path_parameter_refused', field: '/path/id' }),
    );
    // The same value after a name is one segment, encoded.
    expect(
      buildRestRequest(
        syntheticAction({ path: '/items/v{id}', parameters: [pathParameter('id')] }),
        { path: { id: '/x' } },
        { settings: {} },
      ).url.pathname,
    ).toBe('/items/v%2Fx');
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
  ['a slash (RFC 6570 simple expansion)', { given: { value: 'a/b' }, want: 'a%2Fb' }],
  [
    'an AWS ARN with a resource path',
    {
      given: { value: 'arn:aws:workspaces-web:us-east-1:123456789012:portal/abc' },
      want: 'arn%3Aaws%3Aworkspaces-web%3Aus-east-1%3A123456789012%3Aportal%2Fabc',
    },
  ],
  ['a leading slash', { given: { value: '/etc' }, want: '%2Fetc' }],
  ['a backslash', { given: { value: 'a\\b' }, want: 'a%5Cb' }],
  ['an encoded slash is encoded again', { given: { value: 'a%2Fb' }, want: 'a%252Fb' }],
  ['a fullwidth solidus', { given: { value: 'a\uff0fb' }, want: 'a%EF%BC%8Fb' }],
  [
    'an object key with slashes and dots',
    { given: { value: 'photos/2024/a.jpg' }, want: 'photos%2F2024%2Fa.jpg' },
  ],
  ['a hidden file under a folder', { given: { value: 'home/.profile' }, want: 'home%2F.profile' }],
  ['list items with slashes', { given: { value: ['a/b', 'c'] }, want: 'a%2Fb,c' }],
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
