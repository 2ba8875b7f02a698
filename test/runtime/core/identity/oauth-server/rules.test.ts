/** The authorization server's small rules, table-driven: scopes, redirect URIs, registration, passwords, PKCE. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientFromRegistration } from '../../../../../runtime/core/identity/oauth-server/client-registration.ts';
import {
  hashPassword,
  passwordMatches,
  passwordProblem,
} from '../../../../../runtime/core/identity/oauth-server/passwords.ts';
import { verifierMatches } from '../../../../../runtime/core/identity/oauth-server/pkce.ts';
import {
  RedirectAllowlist,
  redirectUriMatches,
  redirectUriProblem,
} from '../../../../../runtime/core/identity/oauth-server/redirect-uris.ts';
import { parseScope, scopesAllow } from '../../../../../runtime/core/identity/principals/scopes.ts';

describe('scopes', () => {
  it.each([
    ['', { scopes: [] }],
    ['tools:write tools:read tools:read', { scopes: ['tools:read', 'tools:write'] }],
    ['tools:write:staging', { scopes: ['tools:write:staging'] }],
    ['tools:read admin', { unknown: 'admin' }],
    ['tools:write:Bad_Name', { unknown: 'tools:write:Bad_Name' }],
  ])('parses %j', (text, want) => {
    expect(parseScope(text)).toEqual(want);
  });

  it.each([
    [['tools:read'], 'read', 'unikraft', true],
    [['tools:read'], 'write', 'unikraft', false],
    [['tools:write'], 'destructive', 'unikraft', false],
    [['tools:write:staging'], 'write', 'staging', true],
    [['tools:write:staging'], 'write', 'unikraft', false],
    [['tools:destructive'], 'destructive', 'unikraft', true],
  ] as const)('%j lets a %s on %s through: %s', (scopes, classification, connection, want) => {
    expect(scopesAllow(new Set(scopes), classification, connection)).toBe(want);
  });
});

describe('redirect URIs', () => {
  it.each([
    ['https://chatgpt.com/connector/oauth/abc', undefined],
    ['http://127.0.0.1:6274/oauth/callback', undefined],
    ['http://[::1]:3000/cb', undefined],
    ['http://localhost:3000/cb', undefined],
    ['http://evil.example/cb', 'must be https, or http on a loopback address'],
    ['https://user:pw@client.example/cb', 'must not embed credentials'],
    ['https://client.example/cb#frag', 'must not have a fragment'],
    ['javascript:alert(1)', 'must be https, or http on a loopback address'],
    ['/relative', 'is not an absolute URL'],
  ])('%s: %s', (uri, want) => {
    const problem = redirectUriProblem(uri);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(want);
  });

  it.each([
    ['https://chatgpt.com/connector/oauth/abc123', true],
    ['https://chatgpt.com/connector/oauth/abc/../../evil', false],
    ['https://chatgpt.com/connector/oauth/x?next=https://evil', false],
    ['https://chatgpt.com.evil.example/connector/oauth/abc', false],
    ['http://127.0.0.1:43123/callback', true],
    ['http://127.0.0.1:1@evil.example/callback', false],
    // A browser reads a backslash as a slash: these go to evil.com, and to chatgpt.com/evil.
    ['https://evil.com\\.example.com/cb', false],
    ['https://chatgpt.com/connector/oauth/x\\..\\..\\..\\evil', false],
    ['https://chatgpt.com/connector/oauth/%2e%2e', false],
    ['https://CHATGPT.com/connector/oauth/abc', false],
    ['https://a.example.com/cb', true],
  ])('the allowlist takes %s: %s', (uri, want) => {
    const allowlist = new RedirectAllowlist([
      'https://chatgpt.com/connector/oauth/*',
      'http://127.0.0.1:*/callback',
      'https://*.example.com/cb',
    ]);
    expect(allowlist.allows(uri)).toBe(want);
  });
});

describe('redirect URI matching', () => {
  it.each([
    ['https://app.example/cb', 'https://app.example/cb', true],
    ['https://app.example/cb', 'https://app.example:8443/cb', false],
    ['http://127.0.0.1:7801/callback', 'http://127.0.0.1:51234/callback', true],
    ['http://[::1]:7801/callback', 'http://[::1]:1/callback', true],
    ['http://127.0.0.1:7801/callback', 'http://127.0.0.1:51234/other', false],
    ['http://127.0.0.1:7801/callback', 'http://127.0.0.1:51234/callback?x=1', false],
    ['http://127.0.0.1:7801/callback', 'http://u@127.0.0.1:51234/callback', false],
    ['http://127.0.0.1:7801/callback', 'http://127.0.0.1:51234/a/../callback', false],
    ['http://localhost:7801/callback', 'http://localhost:51234/callback', false],
  ])('registered %s, presented %s: %s', (registered, presented, want) => {
    expect(redirectUriMatches(registered, presented)).toBe(want);
  });
});

describe('registration', () => {
  const open = new RedirectAllowlist([]);
  const at = new Date('2026-01-01T00:00:00Z');

  it.each([
    ['not an object', [], 'invalid_client_metadata'],
    [
      'a confidential client',
      {
        redirect_uris: ['https://a.example/cb'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      'invalid_client_metadata',
    ],
    [
      'an implicit grant',
      { redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] },
      'invalid_client_metadata',
    ],
    ['no redirect URI', { client_name: 'x' }, 'invalid_redirect_uri'],
    [
      'an http redirect off loopback',
      { redirect_uris: ['http://a.example/cb'] },
      'invalid_redirect_uri',
    ],
  ])('refuses %s', (_name, body, error) => {
    expect(() => clientFromRegistration(body, open, at)).toThrow(
      expect.objectContaining({ error }),
    );
  });

  it('refuses a redirect URI off the allowlist, naming the variable', () => {
    const allowlist = new RedirectAllowlist(['https://chatgpt.com/connector/oauth/*']);
    expect(() =>
      clientFromRegistration({ redirect_uris: ['https://a.example/cb'] }, allowlist, at),
    ).toThrow(/PORTCULLIS_OAUTH_REDIRECT_URIS/);
  });

  it('registers a public client with its own redirect URIs', () => {
    const client = clientFromRegistration(
      { client_name: ' Inspector ', redirect_uris: ['http://localhost:6274/cb'] },
      open,
      at,
    );
    expect(client).toMatchObject({
      name: 'Inspector',
      redirectUris: ['http://localhost:6274/cb'],
      createdAt: at.toISOString(),
    });
    expect(client.id).toMatch(/^pcc_[\w-]{24}$/);
  });
});

describe('passwords', () => {
  it('hash with scrypt and a salt, match only themselves, and never appear in the hash', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(hash).not.toContain('horse');
    expect(await hashPassword('correct horse battery staple')).not.toBe(hash);
    expect(await passwordMatches('correct horse battery staple', hash)).toBe(true);
    expect(await passwordMatches('correct horse battery stapler', hash)).toBe(false);
    expect(await passwordMatches('anything at all here', undefined)).toBe(false);
  });

  it('must be long enough', () => {
    expect(passwordProblem('short')).toBe('expected at least 12 characters');
    expect(passwordProblem('long enough now')).toBeUndefined();
  });
});

describe('PKCE', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  it.each([
    [verifier, true],
    [`${verifier.slice(0, -1)}l`, false],
    ['short', false],
  ])('%s matches: %s', (candidate, want) => {
    expect(verifierMatches(candidate, challenge)).toBe(want);
  });
});
