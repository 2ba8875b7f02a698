import { describe, expect, it } from 'vitest';
import { inertText } from '../../../../runtime/core/base/inert-text.ts';

type Case = [string, { given: string; want: { line: string; lines: string } }];

const same = (text: string) => ({ line: text, lines: text });

const cases: Case[] = [
  ['plain text', { given: 'Reports the weather.', want: same('Reports the weather.') }],
  ['letters past ASCII', { given: 'café, 天気, 🌦', want: same('café, 天気, 🌦') }],
  ['a backslash', { given: 'C:\\x1b', want: same('C:\\x1b') }],
  ['ESC and BEL (a window title)', { given: '\u001b]0;t\u0007', want: same('\\x1b]0;t\\x07') }],
  ['a C1 CSI', { given: '\u009b2J', want: same('\\x9b2J') }],
  ['DEL and NUL', { given: 'a\u007f\u0000', want: same('a\\x7f\\x00') }],
  ['CR and tab', { given: 'a\r\tb', want: same('a\\r\\tb') }],
  ['a line feed', { given: 'a\nb', want: { line: 'a\\nb', lines: 'a\nb' } }],
  [
    'bidi overrides',
    { given: '\u202a\u202b\u202c\u202d\u202e', want: same('\\u202a\\u202b\\u202c\\u202d\\u202e') },
  ],
  [
    'bidi isolates',
    { given: '\u2066\u2067\u2068\u2069', want: same('\\u2066\\u2067\\u2068\\u2069') },
  ],
  ['bidi marks', { given: '\u200e\u200f\u061c', want: same('\\u200e\\u200f\\u061c') }],
  [
    'zero-width characters',
    { given: '\u200b\u200c\u200d\u2060\ufeff', want: same('\\u200b\\u200c\\u200d\\u2060\\ufeff') },
  ],
  ['line and paragraph separators', { given: '\u2028\u2029', want: same('\\u2028\\u2029') }],
  ['a tag character', { given: '\u{e0041}', want: same('\\u{e0041}') }],
];

describe('inertText', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(inertText(given)).toBe(want.line);
    expect(inertText(given, { lines: true })).toBe(want.lines);
  });
});
