/** Shared harness: compile a fixture document the way the corpus is compiled (no curated definition). */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CatalogAction } from '../../generators/catalog/format.ts';
import { compileDocument } from '../../generators/compile/compile-document.ts';
import type { CompiledDocument } from '../../generators/compile/compiled-document.ts';
import { planFromDocument } from '../../generators/compile/document-plan.ts';
import { loadDocument } from '../../generators/openapi/load-document.ts';
import { createAjv } from '../../runtime/core/base/create-ajv.ts';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'openapi');
export const MIRROR = resolve(
  process.env.PORTCULLIS_SPEC_MIRROR ?? join(ROOT, '..', 'shared', 'specs'),
);

export function compileFixture(file: string): CompiledDocument {
  const document = loadDocument(readFileSync(join(FIXTURES, file)), file);
  return compileDocument(document, planFromDocument(document, 'api', 'fx_'));
}

export function actionNamed(compiled: { actions: CatalogAction[] }, name: string): CatalogAction {
  const action = compiled.actions.find((a) => a.name === name);
  if (!action)
    throw new Error(`no action ${name}; have ${compiled.actions.map((a) => a.name).join(', ')}`);
  return action;
}

/** The property schema of one argument group (`path`, `query`, `body`, ...). */
export function group(action: CatalogAction, name: string): Record<string, unknown> | undefined {
  return (action.inputSchema.properties as Record<string, Record<string, unknown>>)[name];
}

/** Compiles every input schema with the runtime's ajv set-up; returns the failures. */
export function ajvFailures(
  actions: CatalogAction[],
  annotationFormats: Iterable<string>,
): string[] {
  const ajv = createAjv([...annotationFormats]);
  const failures: string[] = [];
  for (const action of actions) {
    try {
      ajv.compile(action.inputSchema);
    } catch (error) {
      failures.push(`${action.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return failures;
}
