/**
 * The corpus run's callability check, on the documents CI has: every action of
 * the fixture documents and of the three pinned catalogs takes arguments
 * sampled from its input schema that pass ajv and build a request.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog, CatalogAction } from '../../../generated/catalog-format.ts';
import { createAjv } from '../../../runtime/core/base/create-ajv.ts';
import { buildRestRequest } from '../../../runtime/core/sources/native-rest/build-request.ts';
import { sampleCall } from '../../../scripts/corpus/sample-call.ts';
import { compileFixture, FIXTURES, ROOT } from '../../support/fixtures.ts';
import { syntheticAction } from '../../support/rest-actions.ts';

function notCallable(actions: CatalogAction[], formats: readonly string[]): string[] {
  const ajv = createAjv(formats);
  return actions.flatMap((action) => {
    const outcome = sampleCall(action, ajv.compile(action.inputSchema));
    return outcome.callable ? [] : [`${action.name} [${outcome.reason}] ${outcome.message}`];
  });
}

describe('sampled arguments pass ajv and build a request', () => {
  const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.yaml'));

  it.each(fixtures)('every action of the fixture %s', (file) => {
    const compiled = compileFixture(file);
    expect(notCallable(compiled.actions, [...compiled.annotationFormats])).toEqual([]);
  });

  it.each(['coolify', 'daytona', 'unikraft'])('every action of the pinned %s catalog', (id) => {
    const catalog = JSON.parse(
      readFileSync(join(ROOT, 'generated', id, 'catalog.json'), 'utf8'),
    ) as Catalog;
    // The sampler cannot meet a pattern with a negative lookahead ("no .. in the path").
    const sampler = ['unikraft_attach_volume_by_uuid'];
    const failures = notCallable(catalog.actions, catalog.annotationFormats);
    expect(failures.map((f) => f.split(' ')[0])).toEqual(id === 'unikraft' ? sampler : []);
    expect(failures[0] ?? '[sample_invalid]').toContain('[sample_invalid]');
  });

  it('the one the sampler cannot meet takes a hand-written argument', () => {
    const catalog = JSON.parse(
      readFileSync(join(ROOT, 'generated', 'unikraft', 'catalog.json'), 'utf8'),
    ) as Catalog;
    const action = catalog.actions.find((a) => a.name === 'unikraft_attach_volume_by_uuid')!;
    const args = {
      path: { uuid: '123e4567-e89b-12d3-a456-426614174000' },
      body: { attach_to: { name: 'app' }, at: '/data' },
    };
    const validate = createAjv(catalog.annotationFormats).compile(action.inputSchema);
    expect(validate(args), JSON.stringify(validate.errors)).toBe(true);
    expect(buildRestRequest(action, args, { settings: {} }).body).toBe(JSON.stringify(args.body));
  });

  it('an action whose schema and request builder disagree is reported as arguments_invalid', () => {
    // An input schema that takes an object for a text body: the defect this check exists to find.
    const action = syntheticAction({
      method: 'POST',
      body: { required: false, contentType: 'application/xml', kind: 'text' },
    });
    // The body is optional: the check samples it all the same.
    action.inputSchema = {
      type: 'object',
      properties: { body: { type: 'object', properties: { a: { type: 'string' } } } },
    };
    const outcome = sampleCall(action, createAjv([]).compile(action.inputSchema));
    expect(outcome).toMatchObject({ callable: false, reason: 'arguments_invalid' });
  });
});
