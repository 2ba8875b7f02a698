/**
 * Can an action be called as its input schema says? An argument object is
 * sampled from the schema (json-schema-faker, seeded, so two runs agree), must
 * pass the runtime's ajv, and must build a request with the runtime's request
 * builder, for a host the catalog would allow (when its server names any).
 * Every argument group is sampled (an optional body too); up to nine
 * samples are tried (required members only, then half the optional ones, then
 * all) before the action counts as not callable, with the reason.
 */
import type { ValidateFunction } from 'ajv';
import { generateSync } from 'json-schema-faker';
import type { CatalogAction } from '../../generators/catalog/format.ts';
import { serverHosts } from '../../generators/compile/server-hosts.ts';
import { GatewayError } from '../../runtime/core/base/errors.ts';
import {
  type ActionArguments,
  buildRestRequest,
} from '../../runtime/core/sources/native-rest/build-request.ts';

export type SampleOutcome =
  | { callable: true }
  | {
      callable: false;
      /**
       * `sampler_failed`, `sample_invalid` (the sampler's values fail ajv),
       * `host_not_allowed` (a host the catalog would not allow), or the builder's code.
       */
      reason: string;
      message: string;
    };

/** Required members only first (small samples of big schemas), then half the optional ones, then all. */
const ATTEMPTS = [
  { seed: 1, optionalsProbability: 0 },
  { seed: 2, optionalsProbability: 0.5 },
  { seed: 3, optionalsProbability: 1 },
  ...[4, 5, 6, 7, 8, 9].map((seed) => ({ seed, optionalsProbability: 0 })),
];

/** Values for the formats ajv-formats checks and the sampler does not know. */
const FORMATS: Record<string, () => string> = {
  date: () => '2024-05-06',
  time: () => '10:20:30Z',
  'iso-time': () => '10:20:30Z',
  'iso-date-time': () => '2024-05-06T10:20:30Z',
  duration: () => 'P1DT2H',
  'uri-reference': () => '/items/1',
  'uri-template': () => 'https://example.test/{id}',
  url: () => 'https://example.test/a',
  regex: () => '^a+$',
  'json-pointer-uri-fragment': () => '#/a',
  'relative-json-pointer': () => '0/a',
  byte: () => 'aGVsbG8=',
  password: () => 'secret',
};

/** A document whose server URL is relative (`/api`) is called on a placeholder host. */
export function absoluteServer(action: CatalogAction): CatalogAction {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(action.request.server.url)) return action;
  const url = `https://corpus.example.test${action.request.server.url.startsWith('/') ? '' : '/'}${action.request.server.url}`;
  return { ...action, request: { ...action.request, server: { ...action.request.server, url } } };
}

export function sampleCall(action: CatalogAction, validate: ValidateFunction): SampleOutcome {
  let last: SampleOutcome = { callable: false, reason: 'sampler_failed', message: 'no attempt' };
  const callable = absoluteServer(action);
  const schema = everyGroup(bounded(action.inputSchema) as Record<string, unknown>);
  const hosts = serverHosts([callable.request.server]).fixed;
  for (const attempt of ATTEMPTS) {
    let args: unknown;
    try {
      args = generateSync(schema as never, {
        ...attempt,
        maxDepth: 6,
        refDepthMax: 5,
        maxDefaultItems: 2,
        formats: FORMATS,
      });
    } catch (error) {
      last = { callable: false, reason: 'sampler_failed', message: messageOf(error) };
      continue;
    }
    if (!validate(args)) {
      const first = validate.errors?.[0];
      last = {
        callable: false,
        reason: 'sample_invalid',
        message: `${first?.instancePath || '/'} ${first?.message ?? ''}`,
      };
      continue;
    }
    try {
      const { host } = buildRestRequest(callable, args as ActionArguments, { settings: {} });
      if (hosts.length === 0 || hosts.includes(host)) return { callable: true };
      last = {
        callable: false,
        reason: 'host_not_allowed',
        message: `${host} is not one of ${hosts.join(', ')}`,
      };
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      last = {
        callable: false,
        reason: error.code,
        message: `${error.field ?? ''} ${error.message}`.trim(),
      };
      // A refusal the builder will repeat for any sample: no point in another.
      if (error.code === 'arguments_invalid' || error.code === 'internal') return last;
    }
  }
  return last;
}

/** Every argument group is sampled, optional ones too (an optional body is still a body to build). */
function everyGroup(schema: Record<string, unknown>): Record<string, unknown> {
  const groups = Object.keys((schema.properties ?? {}) as object);
  return groups.length === 0 ? schema : { ...schema, required: groups };
}

const LONGEST = 1000;
const MOST_ITEMS = 3;

/**
 * The schema with its upper bounds lowered for sampling (Kinesis takes 500
 * records of 1 MiB, Redshift strings of 2^31 characters: samples that size fill
 * the heap). A value within the lower bounds is within the original ones too,
 * and ajv still checks it against the original schema.
 */
function bounded(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(bounded);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // Values (enum, const, default, examples) are data, not schemas: kept as they are.
    out[key] = VALUES.has(key) ? value : bounded(value);
  }
  lower(out, 'maxLength', 'minLength', LONGEST);
  lower(out, 'maxItems', 'minItems', MOST_ITEMS);
  lower(out, 'maxProperties', 'minProperties', MOST_ITEMS);
  return out;
}

const VALUES = new Set(['enum', 'const', 'default', 'examples', 'example']);

function lower(
  schema: Record<string, unknown>,
  upper: string,
  lowerBound: string,
  cap: number,
): void {
  const max = schema[upper];
  if (typeof max !== 'number' || max <= cap) return;
  const min = typeof schema[lowerBound] === 'number' ? (schema[lowerBound] as number) : 0;
  schema[upper] = Math.max(cap, min);
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}
