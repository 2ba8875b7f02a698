import { describe, expect, it } from 'vitest';
import { findingsSummary } from '../../../generators/cli/findings-summary.ts';
import type { Problem } from '../../../generators/openapi/validate-document.ts';

const nullable31: Problem = {
  severity: 'error',
  rule: 'struct',
  pointer: '/components/schemas/A/properties/b/nullable',
  message: 'Property `nullable` is not expected here.',
};
const untyped: Problem = {
  severity: 'error',
  rule: 'struct',
  pointer: '/components/schemas/E/properties/data/nullable',
  message: 'The `type` field must be defined when the `nullable` field is used.',
};
const undefinedVariable: Problem = {
  severity: 'warn',
  rule: 'no-undefined-server-variable',
  pointer: '/servers/0/url',
  message: 'The `metro` variable is not defined in the `variables` objects.',
};

// What the generate line says is the requirement: findings a passing run compiled around are not "errors".
describe('the generate line', () => {
  it.each<[string, { given: Problem[]; want: string }]>([
    ['no findings', { given: [], want: '' }],
    [
      "Coolify's nullable keywords",
      {
        given: [nullable31, nullable31],
        want: ', 2 spec findings, compiled anyway: 2 × nullable in OpenAPI 3.1, honoured as null (first at #/components/schemas/A/properties/b/nullable; --problems lists them)',
      },
    ],
    [
      'findings of several kinds',
      {
        given: [untyped, undefinedVariable],
        want: ', 2 spec findings, compiled anyway: 1 × nullable without a type, honoured as null, 1 × no-undefined-server-variable warning (first at #/components/schemas/E/properties/data/nullable; --problems lists them)',
      },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(findingsSummary(given)).toBe(want);
    expect(findingsSummary(given)).not.toMatch(/\berrors?\b/);
  });
});
