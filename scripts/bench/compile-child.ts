/**
 * The benchmark's child process for our side: one document in, files out, then
 * exit. Run fresh for every measurement, so its peak RSS is that run's alone.
 *
 * Built by `npm run build` into dist/bench-compile-child.mjs and run as plain Node.
 *
 *   node dist/bench-compile-child.mjs compile <document> <out dir>
 *     spec → catalog in memory: load, compile (names, input schemas,
 *     classification, contract hashes), name check, catalog hash; nothing written
 *   node dist/bench-compile-child.mjs catalog <document> <out dir>
 *     the same, and catalog.json written
 *   node dist/bench-compile-child.mjs emit <document> <out dir>
 *     catalog.json + api.d.ts (openapi-typescript, in a worker thread) + tools.ts (ts-morph)
 *   node dist/bench-compile-child.mjs types <document> <out dir>
 *     api.d.ts alone, from openapi-typescript's own openapiTS() with its default
 *     options, as a user runs it: the baseline of `emit`
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type * as OpenApiTypescript from 'openapi-typescript';
import type { Catalog } from '../../generators/catalog/format.ts';
import { sha256Hex } from '../../generators/catalog/rules.ts';
import { TypesWorker } from '../../generators/cli/types-worker.ts';
import { compileDocument } from '../../generators/compile/compile-document.ts';
import { assembleCatalog } from '../../generators/compile/compile-provider.ts';
import { planFromDocument } from '../../generators/compile/document-plan.ts';
import { bannerLines, jsonFile } from '../../generators/emit/banner.ts';
import { loadDocument, type OpenApiDocument } from '../../generators/openapi/load-document.ts';

const MODES = ['compile', 'catalog', 'emit', 'types'] as const;
type Mode = (typeof MODES)[number];

function createCatalog(document: OpenApiDocument, sha256: string, banner: string[]): Catalog {
  const plan = planFromDocument(document, 'api', 'x_');
  const pin = { repo: 'bench', commit: '0'.repeat(40), path: basename(document.file), sha256 };
  const info = document.root.info as { title?: unknown } | undefined;
  const name = typeof info?.title === 'string' ? info.title : 'api';
  return assembleCatalog(
    { id: 'api', name },
    [{ id: 'api', pin, plan, compiled: compileDocument(document, plan) }],
    banner.join('\n'),
  );
}

async function run(mode: Mode, path: string, out: string): Promise<void> {
  const bytes = await readFile(path);
  const document = loadDocument(bytes, path);
  const sha256 = sha256Hex(bytes);
  const banner = bannerLines([
    { document: 'api', repo: 'bench', commit: '0'.repeat(40), path: basename(path), sha256 },
  ]);
  if (mode === 'types') {
    const { requireCommonJs } = await import('../../generators/require-commonjs.ts');
    const { default: openapiTS, astToString } = requireCommonJs(
      'openapi-typescript',
    ) as typeof OpenApiTypescript;
    const ast = await openapiTS(document.root as unknown as OpenApiTypescript.OpenAPI3, {
      silent: true,
    });
    await writeFile(join(out, 'api.d.ts'), astToString(ast));
    return;
  }
  // As `npm run generate` does it: the types in a worker thread, the rest here.
  const worker = mode === 'emit' ? new TypesWorker() : undefined;
  const types = worker?.createTypes(document, banner);
  const catalog = createCatalog(document, sha256, banner);
  if (mode === 'compile') return;
  await writeFile(join(out, 'catalog.json'), jsonFile(catalog));
  if (worker && types) {
    const { createToolsModule } = await import('../../generators/emit/tools-module.ts');
    await writeFile(join(out, 'tools.ts'), createToolsModule(catalog, banner));
    await writeFile(join(out, 'api.d.ts'), await types);
    await worker.close();
  }
}

const [mode, path, out] = process.argv.slice(2);
if (!MODES.includes(mode as Mode) || !path || !out) {
  console.error(`usage: compile-child.ts ${MODES.join('|')} <document> <out dir>`);
  process.exitCode = 2;
} else {
  await run(mode as Mode, path, out);
}
