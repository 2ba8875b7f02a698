/**
 * The redactor finds a secret however JSON lets a writer encode it: plain,
 * percent-encoded, or hidden in escapes (`\u0043`, `\/` as PHP writes it,
 * `\u002B` as .NET does, every character escaped), in a JSON reply or in
 * plain text; what it leaves is still the JSON it was.
 */
import { describe, expect, it } from 'vitest';
import { unescapeJson } from '../../../../runtime/core/outbound/json-escapes.ts';
import { REDACTED, Redactor } from '../../../../runtime/core/outbound/redaction.ts';

const SECRET = 'CANARY-q8+Zr/Tm=';

const escapeAll = (text: string) =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const php = (text: string) => text.replaceAll('/', '\\/');
const dotnet = (text: string) => text.replaceAll('+', '\\u002B').replaceAll('=', '\\u003D');
const firstEscaped = (text: string) => `\\u0043${php(dotnet(text.slice(1)))}`;
const lowerHex = (text: string) => text.replaceAll('+', '\\u002b');

const redactor = new Redactor([SECRET]);

describe('the redactor on a JSON reply', () => {
  it.each<[string, string]>([
    ['plain', SECRET],
    ['percent-encoded', encodeURIComponent(SECRET)],
    ['the first character escaped', firstEscaped(SECRET)],
    ['slashes escaped (PHP)', php(SECRET)],
    ['plus and equals escaped (.NET)', dotnet(SECRET)],
    ['lower-case hex', lowerHex(SECRET)],
    ['every character escaped', escapeAll(SECRET)],
    ['percent-encoded, then escaped', escapeAll(encodeURIComponent(SECRET))],
  ])('%s: the parsed reply holds no secret and is still JSON', (_name, encoded) => {
    for (const json of [
      `{"got":"Bearer ${encoded}","n":1}`,
      `["${encoded}", {"k": "x${encoded}y"}]`,
      `{"${encoded}":true}`,
    ]) {
      const out = redactor.bytes(Buffer.from(json)).toString('utf8');
      const parsed = JSON.stringify(JSON.parse(out));
      expect(parsed).not.toContain(SECRET);
      expect(parsed).not.toContain(encodeURIComponent(SECRET));
      expect(out).toContain('[redacted]');
    }
  });

  it('keeps what surrounds the secret, escapes and all', () => {
    const out = redactor.bytes(Buffer.from(`{"a":"x\\/y","b":"${firstEscaped(SECRET)}\\n"}`));
    expect(JSON.parse(out.toString('utf8'))).toEqual({ a: 'x/y', b: '[redacted]\n' });
  });

  it('does not take an escaped backslash for an escape', () => {
    // `\\u0043ANARY…` parses to a backslash, a `u` and digits: not the secret.
    const json = `{"a":"\\\\u0043${SECRET.slice(1)}"}`;
    expect(redactor.bytes(Buffer.from(json)).toString('utf8')).toBe(json);
  });

  it('replaces a secret in bytes that are not text and keeps every other byte', () => {
    // An image's bytes: not UTF-8, with backslashes, and the secret written plainly inside.
    const before = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x5c, 0xfe, 0x00]);
    const after = Buffer.from([0x5c, 0x75, 0x30, 0x30, 0xc3, 0x28, 0x80]);
    const body = Buffer.concat([before, Buffer.from(SECRET), after]);
    expect(redactor.bytes(body)).toEqual(Buffer.concat([before, Buffer.from(REDACTED), after]));
  });

  it('returns the same buffer when no secret is there, with or without escapes', () => {
    for (const json of ['{"ok":true}', '{"url":"https:\\/\\/example.com\\/a"}']) {
      const body = Buffer.from(json);
      expect(redactor.bytes(body)).toBe(body);
    }
  });
});

describe('the redactor on text', () => {
  it('replaces an escaped secret in a text that is not JSON', () => {
    const out = redactor.text(`token=${firstEscaped(SECRET)}; bye`);
    expect(unescapeJson(out)).not.toContain(SECRET);
    expect(out).toBe('token=[redacted]; bye');
  });
});

describe('a redactor with a workspace redactor beside it', () => {
  const workspace = new Redactor(
    Array.from({ length: 50 }, (_, i) => `ws-secret-${String(i).padStart(2, '0')}-x.y*z`),
  );
  const own = new Redactor([SECRET], workspace);

  it.each([
    ['its own secret plainly', `a ${SECRET} b`, 'a [redacted] b'],
    ['a workspace secret plainly', 'a ws-secret-07-x.y*z b', 'a [redacted] b'],
    [
      'a workspace secret percent-encoded',
      `a ${encodeURIComponent('ws-secret-49-x.y*z')} b`,
      'a [redacted] b',
    ],
    ['a workspace secret in JSON escapes', 'a \\u0077s-secret-13-x.y*z b', 'a [redacted] b'],
    [
      'text like a secret, with pattern characters',
      'a ws-secret-07-xAyyz b',
      'a ws-secret-07-xAyyz b',
    ],
  ])('replaces %s, in text and in bytes', (_, given, want) => {
    expect(own.text(given)).toBe(want);
    expect(own.bytes(Buffer.from(given)).toString('utf8')).toBe(want);
  });

  it('replaces a secret that contains another one whole', () => {
    const nested = new Redactor(['abc'], new Redactor(['xxabcxx', 'abcd']));
    expect(nested.text('1 xxabcxx 2 abcd 3')).toBe('1 [redacted] 2 [redacted] 3');
  });
});
