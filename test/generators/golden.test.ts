/**
 * Golden files: each fixture document, compiled without a curated definition,
 * must produce exactly its recorded catalog entries. Update on purpose with
 * `npx vitest run test/generators/golden.test.ts -u` and review the diff.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonFile } from '../../generators/emit/banner.ts';
import { ajvFailures, compileFixture, FIXTURES } from '../support/fixtures.ts';

const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe.each(fixtures)('fixture %s', (file) => {
  const compiled = compileFixture(file);

  it('compiles to its golden output', async () => {
    const golden = jsonFile({
      operations: compiled.operations,
      annotationFormats: [...compiled.annotationFormats].sort(),
      actions: [...compiled.actions].sort((a, b) => (a.name < b.name ? -1 : 1)),
      inventory: compiled.inventory,
    });
    await expect(golden).toMatchFileSnapshot(
      `../fixtures/openapi/golden/${file.replace(/\.yaml$/, '.json')}`,
    );
  });

  it('accounts for every operation and emits schemas ajv compiles in strict mode', () => {
    const fromPaths = compiled.inventory.filter(
      (e) => e.reason !== 'callback' && e.reason !== 'webhook',
    );
    expect(compiled.actions.length + fromPaths.length).toBe(compiled.operations);
    expect(ajvFailures(compiled.actions, compiled.annotationFormats)).toEqual([]);
  });
});
