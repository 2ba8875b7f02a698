/**
 * The benchmark's child process for our side: one document in, files out, then
 * exit. Run fresh for every measurement, so its peak RSS is that run's alone.
 *
 *   node --import tsx scripts/bench/compile-child.ts compile <document> <out dir>
 *     spec → catalog in memory: load, compile (names, input schemas,
 *     classification, contract hashes), name check, catalog hash; nothing written
 *   node --import tsx scripts/bench/compile-child.ts catalog <document> <out dir>
 *     the same, and catalog.json written
 *   node --import tsx scripts/bench/compile-child.ts emit <document> <out dir>
 *     catalog.json + api.d.ts (openapi-typescript) + tools.ts (ts-morph)
 *   node --import tsx scripts/bench/compile-child.ts types <document> <out dir>
 *     api.d.ts alone (openapi-typescript through createTypes): the baseline of `emit`
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Catalog } from '../../generators/catalog/format.ts';
import { compileDocument } from '../../generators/compile/compile-document.ts';
import { catalogHash, GENERATOR, hostsOf } from '../../generators/compile/compile-provider.ts';
import { sha256Hex } from '../../generators/compile/contract-hash.ts';
import { planFromDocument } from '../../generators/compile/document-plan.ts';
import { ensureUniqueNames } from '../../generators/compile/ensure-definition.ts';
import { bannerLines, jsonFile } from '../../generators/emit/banner.ts';
import { loadDocument, type OpenApiDocument } from '../../generators/openapi/load-document.ts';

const MODES = ['compile', 'catalog', 'emit', 'types'] as const;
type Mode = (typeof MODES)[number];

function createCatalog(document: OpenApiDocument, sha256: string, banner: string[]): Catalog {
  const plan = planFromDocument(document, 'api', 'x_');
  const compiled = compileDocument(document, plan);
  const actions = compiled.actions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  ensureUniqueNames(actions, 'api');
  const info = document.root.info as { title?: unknown } | undefined;
  return {
    $comment: banner.join('\n'),
    format: 1,
    provider: { id: 'api', name: typeof info?.title === 'string' ? info.title : 'api' },
    generator: { ...GENERATOR },
    sources: [
      {
        document: 'api',
        repo: 'bench',
        commit: '0'.repeat(40),
        path: basename(document.file),
        sha256,
        operations: compiled.operations,
      },
    ],
    hash: catalogHash('api', actions, compiled.inventory),
    hosts: hostsOf([plan.server]),
    annotationFormats: [...compiled.annotationFormats].sort(),
    counts: {
      read: actions.filter((a) => a.classification === 'read').length,
      write: actions.filter((a) => a.classification === 'write').length,
      destructive: actions.filter((a) => a.classification === 'destructive').length,
      inventory: compiled.inventory.length,
    },
    actions,
    inventory: compiled.inventory,
  };
}

async function run(mode: Mode, path: string, out: string): Promise<void> {
  const bytes = await readFile(path);
  const document = loadDocument(bytes, path);
  const sha256 = sha256Hex(bytes);
  const banner = bannerLines([
    { document: 'api', repo: 'bench', commit: '0'.repeat(40), path: basename(path), sha256 },
  ]);
  if (mode === 'types') {
    const { createTypes } = await import('../../generators/emit/types-dts.ts');
    await writeFile(join(out, 'api.d.ts'), await createTypes(document, banner));
    return;
  }
  const catalog = createCatalog(document, sha256, banner);
  if (mode === 'compile') return;
  await writeFile(join(out, 'catalog.json'), jsonFile(catalog));
  if (mode === 'emit') {
    const [{ createTypes }, { createToolsModule }] = await Promise.all([
      import('../../generators/emit/types-dts.ts'),
      import('../../generators/emit/tools-module.ts'),
    ]);
    await writeFile(join(out, 'api.d.ts'), await createTypes(document, banner));
    await writeFile(join(out, 'tools.ts'), createToolsModule(catalog, banner));
  }
}

const [mode, path, out] = process.argv.slice(2);
if (!MODES.includes(mode as Mode) || !path || !out) {
  console.error(`usage: compile-child.ts ${MODES.join('|')} <document> <out dir>`);
  process.exitCode = 2;
} else {
  await run(mode as Mode, path, out);
}
