/** The upstream's Bearer challenge (RFC 6750 §3, RFC 9728 §5.1) and step-up's scopes (SEP-2350). */
import { describe, expect, it } from 'vitest';
import {
  parseBearerChallenge,
  stepUpScopes,
} from '../../../../../runtime/core/identity/oauth-client/upstream-oauth.ts';

describe('parseBearerChallenge', () => {
  it.each([
    ['none', undefined, undefined],
    ['another scheme', 'Basic realm="x"', undefined],
    ['a bare Bearer', 'Bearer', {}],
    [
      'quoted parameters',
      'Bearer realm="mcp", error="insufficient_scope", scope="a b", resource_metadata="https://r.example/.well-known/oauth-protected-resource/mcp"',
      {
        error: 'insufficient_scope',
        scope: ['a', 'b'],
        resourceMetadata: 'https://r.example/.well-known/oauth-protected-resource/mcp',
      },
    ],
    [
      'token parameters',
      'bearer error=invalid_token, scope=files:read',
      { error: 'invalid_token', scope: ['files:read'] },
    ],
    ['an escaped quote', 'Bearer scope="a\\"b"', { scope: ['a"b'] }],
    ['Bearer after another challenge', 'Basic realm="x", Bearer scope="s"', { scope: ['s'] }],
    ['the next challenge ends it', 'Bearer scope="s", DPoP algs="ES256"', { scope: ['s'] }],
  ])('reads %s', (_name, header, want) => {
    expect(parseBearerChallenge(header)).toEqual(want);
  });
});

describe('stepUpScopes', () => {
  it('asks for the union when the challenge names a scope the token lacks', () => {
    expect(
      stepUpScopes(['mcp:basic'], { error: 'insufficient_scope', scope: ['mcp:write'] }),
    ).toEqual(['mcp:basic', 'mcp:write']);
  });
  it('gives up when the union is no wider (no loop)', () => {
    expect(
      stepUpScopes(['mcp:admin'], { error: 'insufficient_scope', scope: ['mcp:admin'] }),
    ).toBeUndefined();
  });
  it('only answers insufficient_scope', () => {
    expect(stepUpScopes([], { error: 'invalid_token', scope: ['x'] })).toBeUndefined();
  });
});
