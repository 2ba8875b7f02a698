import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../runtime/core/base/errors.ts';
import {
  CatalogSet,
  generatedProviderFiles,
} from '../../../../runtime/core/catalog/catalog-set.ts';
import { argumentHash, validateArguments } from '../../../../runtime/core/pipeline/arguments.ts';
import { GENERATED } from '../../../support/gateway.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('argumentHash', () => {
  it.each<[string, { given: unknown; want: string }]>([
    ['no arguments', { given: undefined, want: sha256('{}') }],
    ['an empty object', { given: {}, want: sha256('{}') }],
    [
      'keys in any order, canonical JSON',
      { given: { b: 1, a: [true, 'x'] }, want: sha256('{"a":[true,"x"],"b":1}') },
    ],
    ['numbers as RFC 8785 writes them', { given: { n: 1e21 }, want: sha256('{"n":1e+21}') }],
  ])('%s', (_name, { given, want }) => {
    expect(argumentHash(given)).toBe(want);
  });
});

describe('argumentHash of arguments it cannot encode', () => {
  function refusal(args: unknown): { code: string; field: string | undefined } {
    try {
      argumentHash(args);
    } catch (error) {
      if (error instanceof GatewayError) return { code: error.code, field: error.field };
      throw error;
    }
    throw new Error('expected a refusal');
  }
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];

  it.each<[string, { given: unknown; field: string }]>([
    ['a lone high surrogate', { given: { body: { name: 'x\ud800' } }, field: '/body/name' }],
    ['a lone low surrogate in an array', { given: { list: ['ok', '\udc00'] }, field: '/list/1' }],
    ['a lone surrogate in a property name', { given: { body: { '\ud800': 1 } }, field: '/body' }],
    ['100,000 levels deep', { given: { body: deep }, field: '/body' }],
  ])('%s is arguments_invalid naming the field', (_name, { given, field }) => {
    expect(refusal(given)).toEqual({ code: 'arguments_invalid', field });
  });

  it('hashes a surrogate pair and 256 levels', () => {
    let nested: unknown = 1;
    for (let i = 0; i < 255; i++) nested = [nested];
    expect(argumentHash({ emoji: '\ud83d\ude00', nested })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('validateArguments', async () => {
  const catalogs = await CatalogSet.load(generatedProviderFiles(GENERATED));
  const unikraft = catalogs.getOrThrow('unikraft');
  const action = unikraft.actions.get('unikraft_create_volume')!;

  function fieldOf(args: Record<string, unknown>): string | undefined {
    try {
      validateArguments(unikraft, action, args);
      return undefined;
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      expect(error.code).toBe('arguments_invalid');
      return error.field;
    }
  }

  it.each<[string, { given: Record<string, unknown>; want: string | undefined }]>([
    ['valid arguments pass', { given: { body: { name: 'v', size_mb: 1 } }, want: undefined }],
    ['a missing property names itself', { given: {}, want: '/body' }],
    [
      'an extra property names itself',
      { given: { body: { name: 'v', size_mb: 1 }, bogus: 1 }, want: '/bogus' },
    ],
    [
      'a wrong type names the value',
      { given: { body: { name: 'v', size_mb: 'big' } }, want: '/body/size_mb' },
    ],
    [
      'an unpublished metro names the variable',
      { given: { server: { metro: 'mars' }, body: { size_mb: 1 } }, want: '/server/metro' },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(fieldOf(given)).toBe(want);
  });
});
