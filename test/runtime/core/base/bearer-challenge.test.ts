/** The `WWW-Authenticate` values of RFC 6750 and RFC 9728, built from the one table. */
import { describe, expect, it } from 'vitest';
import { bearerChallenge } from '../../../../runtime/core/base/errors.ts';

const where = {
  realm: 'portcullis',
  resourceMetadataUrl: 'https://gw.example/.well-known/oauth-protected-resource/mcp',
};

describe('bearer challenges', () => {
  it.each([
    [
      'no credential',
      {},
      undefined,
      `Bearer realm="portcullis", resource_metadata="${where.resourceMetadataUrl}"`,
    ],
    [
      'no credential, with the scope to ask for',
      { scope: 'tools:read' },
      undefined,
      `Bearer realm="portcullis", scope="tools:read", resource_metadata="${where.resourceMetadataUrl}"`,
    ],
    [
      'a credential refused',
      { scope: 'tools:read' },
      'unauthenticated' as const,
      `Bearer realm="portcullis", error="invalid_token", scope="tools:read", resource_metadata="${where.resourceMetadataUrl}"`,
    ],
    [
      'a scope missing (step-up)',
      { scope: 'tools:write' },
      'insufficient_scope' as const,
      `Bearer realm="portcullis", error="insufficient_scope", error_description="the access token does not carry the scope this action needs", scope="tools:write", resource_metadata="${where.resourceMetadataUrl}"`,
    ],
  ])('%s', (_name, extra, code, want) => {
    expect(bearerChallenge({ ...where, ...extra }, code)).toBe(want);
  });

  it('refuses a parameter that would break out of its quotes', () => {
    expect(() => bearerChallenge({ realm: 'a"b' })).toThrow(TypeError);
  });
});
