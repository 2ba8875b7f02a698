/**
 * The one traversal check every value in a URL path passes (path parameters
 * and server variables): a `/` is not a step, a `.` or `..` segment is, in
 * every form a server or a proxy in front of it is known to decode.
 */
import { describe, expect, it } from 'vitest';
import { traversalIn } from '../../../../../runtime/core/sources/native-rest/path-traversal.ts';

type Case = [string, { given: string; want: 'kept' | 'refused' }];
const kept = (given: string): Case[1] => ({ given, want: 'kept' });
const refused = (given: string): Case[1] => ({ given, want: 'refused' });

const cases: Case[] = [
  // What a value may hold: every one of these stays inside the path it is put in.
  [
    'an AWS ARN with a resource path',
    kept('arn:aws:workspaces-web:us-east-1:123456789012:portal/abc'),
  ],
  ['an IAM role ARN with a path', kept('arn:aws:iam::123456789012:role/service/name')],
  ['an object key with slashes', kept('photos/2024/a.jpg')],
  ['a leading slash', kept('/etc')],
  ['an empty segment', kept('a//b')],
  ['a backslash between names', kept('a\\b')],
  ['dots inside names', kept('my.app..v2')],
  ['a hidden file name', kept('.profile')],
  ['a trailing dot on a name', kept('v2.')],
  ['three dots inside a name', kept('a...b')],
  ['an encoded slash between names', kept('a%2Fb')],
  ['a lone percent sign', kept('100%')],
  ['a percent sign before letters', kept('50%off')],
  ['an encoded letter', kept('%41')],
  ['non-ASCII text', kept('Zürich/Straße')],
  ['a semicolon in a name', kept('a;b=c')],
  ['a fullwidth letter', kept('ａ')],
  // The steps themselves, written plainly.
  ['dot', refused('.')],
  ['dot dot', refused('..')],
  ['dot dot in the middle', refused('a/../b')],
  ['dot in the middle', refused('a/./b')],
  ['a leading dot dot', refused('../admin')],
  ['a trailing dot dot', refused('x/..')],
  ['dot dot between backslashes', refused('x\\..\\y')],
  ['three dots (Windows trims the third)', refused('...')],
  ['dot dot and a space (Windows trims it)', refused('.. ')],
  ['a space and dot dot', refused(' ..')],
  ['dot dot with a path parameter (Tomcat drops it)', refused('..;jsessionid=x')],
  ['dot with a path parameter', refused('a/.;x/b')],
  // Percent-encoded, in layers.
  ['encoded dot dot', refused('%2e%2e')],
  ['encoded dot dot, upper case', refused('%2E%2E')],
  ['half-encoded dot dot', refused('.%2e')],
  ['encoded dot', refused('%2e')],
  ['dot dot and an encoded slash', refused('..%2fadmin')],
  ['an encoded slash and dot dot', refused('x%2F..')],
  ['dot dot and an encoded backslash', refused('..%5cadmin')],
  ['all encoded', refused('%2e%2e%2fadmin')],
  ['double-encoded dot dot', refused('%252e%252e')],
  ['double-encoded slash and dot dot', refused('x%252f..')],
  ['triple-encoded dot', refused('%25252e')],
  ['four layers of encoding', refused('%2525252e')],
  ['encoded dot dot with a path parameter', refused('%2e%2e;x')],
  ['IIS %u encoding', refused('%u002e%u002e')],
  ['IIS %u encoding, half', refused('.%u002e')],
  ['overlong UTF-8 dot', refused('%c0%ae%c0%ae')],
  ['overlong UTF-8 slash', refused('..%c0%afadmin')],
  ['three-byte overlong dot', refused('%e0%80%ae')],
  ['a lone continuation byte', refused('%80')],
  // Unicode forms a normalizer or a best-fit code page turns into dots or separators.
  ['fullwidth dots (NFKC ..)', refused('\uff0e\uff0e')],
  ['two dot leader (NFKC ..)', refused('\u2025')],
  ['one dot leader twice', refused('\u2024\u2024')],
  ['small full stops', refused('\ufe52\ufe52')],
  ['fullwidth solidus around dot dot', refused('a\uff0f..\uff0fb')],
  ['division slash around dot dot', refused('a\u2215..\u2215b')],
  ['fraction slash before dot dot', refused('a\u2044..')],
  ['yen sign as a backslash (Shift-JIS best fit)', refused('..\u00a5x')],
  ['won sign as a backslash (Korean best fit)', refused('..\u20a9x')],
  ['small reverse solidus', refused('..\ufe68x')],
  ['encoded fullwidth dots', refused('%ef%bc%8e%ef%bc%8e')],
  ['a zero-width space between dots', refused('.\u200b.')],
  ['a soft hyphen before dot dot', refused('\u00ad..')],
  ['a byte order mark between dots', refused('.\ufeff.')],
  // Control characters, in any layer.
  ['NUL', refused('a\u0000b')],
  ['encoded NUL', refused('a%00b')],
  ['dot dot and an encoded NUL', refused('..%00')],
  ['double-encoded NUL', refused('a%2500b')],
  ['line feed', refused('a\nb')],
  ['encoded carriage return', refused('a%0db')],
  ['tab', refused('a\tb')],
  ['DEL', refused('a\u007f')],
  ['a C1 control (NEL)', refused('a\u0085b')],
];

describe('traversalIn', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(traversalIn(given) === undefined ? 'kept' : 'refused').toBe(want);
  });

  it('names why it refuses', () => {
    expect(traversalIn('a/../b')).toBe('holds a . or .. path step');
    expect(traversalIn('%2525252541')).toBe('is percent-encoded too many times');
    expect(traversalIn('%c0%ae')).toBe('holds a percent-encoding that is not UTF-8');
    expect(traversalIn('a%00')).toBe('holds a control character');
  });
});
