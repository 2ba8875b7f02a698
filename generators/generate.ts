/**
 * The whole pipeline for every provider: definitions and pinned bytes in,
 * the contents of `generated/` out. Pure: the CLI supplies the bytes and
 * writes (or compares) the files.
 */

import {
  type Pin,
  type Pins,
  PinsSchema,
  type ProviderDefinition,
  ProviderDefinitionSchema,
} from '../specs/provider-definition.ts';
import type { Catalog, RemoteMcpManifest } from './catalog/format.ts';
import { sha256Hex } from './catalog/rules.ts';
import { compileProvider, type PinnedDocument } from './compile/compile-provider.ts';
import {
  createRemoteManifest,
  ensureRemotesDistinct,
  parseRemoteDefinition,
} from './compile/compile-remote.ts';
import { parseOrThrow } from './compile/parse-definition.ts';
import { bannerLines, jsonFile } from './emit/banner.ts';
import { createManifest } from './emit/manifest-json.ts';
import { CompileError } from './errors.ts';
import { loadDocument, type OpenApiDocument } from './openapi/load-document.ts';
import type { Problem } from './openapi/validate-document.ts';

export interface ProviderInput {
  /** The default export of `specs/<id>/provider.ts`, not yet validated. */
  definition: unknown;
  /** The contents of `specs/<id>/pins.json`, not yet validated. */
  pins: unknown;
}

export interface GenerateInput {
  providers: Record<string, ProviderInput>;
  /** The default exports of `specs/<id>/remote.ts` (curated remote MCP servers), by folder, not yet validated. */
  remotes: Record<string, unknown>;
  /** The bytes of a pin (from a mirror, a cache or a download); their hash is checked here. */
  readPin: (provider: string, document: string, pin: Pin) => Promise<Uint8Array>;
  /** The source text of `generators/catalog/format.ts`. */
  formatSource: string;
  /** The source text of `generators/catalog/rules.ts`. */
  rulesSource: string;
  /** A document's `.d.ts` (`emit/types-dts.ts`, in this thread or a worker thread). */
  createTypes: (document: OpenApiDocument, banner: string[]) => Promise<string>;
  /** Formats one generated TypeScript file (`path` under `generated/`); see `cli/biome-format.ts`. */
  formatCode: (path: string, text: string) => Promise<string>;
}

export interface DocumentReport {
  provider: string;
  document: string;
  operations: number;
  actions: number;
  inventory: number;
  problems: Problem[];
}

export interface GeneratedTree {
  /** Path under `generated/` → contents. */
  files: Map<string, string>;
  catalogs: Catalog[];
  /** The curated remote MCP servers' manifests, sorted by id. */
  remotes: RemoteMcpManifest[];
  reports: DocumentReport[];
}

export async function generate(input: GenerateInput): Promise<GeneratedTree> {
  // Curated remote definitions need no pinned bytes: they are checked first, so
  // a bad one fails the run before anything is loaded.
  const remoteDefinitions = Object.keys(input.remotes)
    .sort()
    .map((id) => parseRemoteDefinition(id, input.remotes[id]));
  ensureRemotesDistinct(remoteDefinitions, Object.keys(input.providers));
  const remotes = remoteDefinitions.map(createRemoteManifest);
  // Every provider's documents are loaded and their types requested first, and
  // only then are redocly and ts-morph loaded: the types may be emitted in
  // another thread while this one loads, validates and compiles.
  const providers = [];
  for (const id of Object.keys(input.providers).sort()) {
    const { definition, documents } = await loadProvider(id, input);
    const banner = bannerLines(documents.map(({ id: document, pin }) => ({ document, ...pin })));
    const types = documents.map(({ document }) => input.createTypes(document, banner));
    providers.push({ id, definition, documents, banner, types });
  }
  const [
    { createValidator },
    { createToolsModule },
    { createCatalogFormatModule, createCatalogRulesModule, createIndexModule },
  ] = await Promise.all([
    import('./openapi/validate-document.ts'),
    import('./emit/tools-module.ts'),
    import('./emit/index-module.ts'),
  ]);
  const validate = await createValidator();

  const files = new Map<string, string>();
  const catalogs: Catalog[] = [];
  const reports: DocumentReport[] = [];
  for (const { id, definition, documents, banner, types } of providers) {
    const catalog = compileProvider(definition, documents, banner.join('\n'));
    catalogs.push(catalog);
    files.set(`${id}/catalog.json`, jsonFile(catalog));
    files.set(`${id}/manifest.json`, jsonFile(createManifest(definition, catalog)));
    files.set(`${id}/tools.ts`, createToolsModule(catalog, banner));
    for (const [i, { id: document, document: loaded }] of documents.entries()) {
      reports.push({
        provider: id,
        document,
        operations: catalog.sources[i]!.operations,
        actions: catalog.actions.filter((a) => a.document === document).length,
        inventory: catalog.inventory.filter((e) => e.document === document).length,
        problems: await validate(loaded),
      });
    }
    for (const [i, { id: document }] of documents.entries()) {
      files.set(`${id}/${document}.d.ts`, await types[i]!);
    }
  }
  for (const remote of remotes) {
    files.set(`${remote.connection.id}/manifest.json`, jsonFile(remote));
  }
  files.set('catalog-format.ts', createCatalogFormatModule(input.formatSource));
  files.set('catalog-rules.ts', createCatalogRulesModule(input.rulesSource));
  files.set('index.ts', createIndexModule(catalogs, remotes));
  const typescript = [...files].filter(([path]) => path.endsWith('.ts'));
  const formatted = await Promise.all(
    typescript.map(([path, text]) => input.formatCode(path, text)),
  );
  for (const [i, [path]] of typescript.entries()) files.set(path, formatted[i]!);
  return { files, catalogs, remotes, reports };
}

/** A provider's definition and pins, validated, and its pinned documents, hash-checked and loaded. */
async function loadProvider(
  id: string,
  input: GenerateInput,
): Promise<{ definition: ProviderDefinition; documents: PinnedDocument[] }> {
  const { definition: rawDefinition, pins: rawPins } = input.providers[id]!;
  const definition = parseOrThrow(
    ProviderDefinitionSchema,
    rawDefinition,
    `specs/${id}/provider.ts`,
  );
  const pins = parseOrThrow(PinsSchema, rawPins, `specs/${id}/pins.json`);
  ensurePinsMatchDocuments(definition, pins);
  const documents: PinnedDocument[] = [];
  for (const document of Object.keys(definition.documents)) {
    const pin = pins[document]!;
    const bytes = await input.readPin(id, document, pin);
    ensureHash(id, document, pin, bytes);
    const file = `${pin.repo}@${pin.commit.slice(0, 12)}:${pin.path}`;
    documents.push({ id: document, pin, document: loadDocument(bytes, file) });
  }
  return { definition, documents };
}

export function ensureHash(provider: string, document: string, pin: Pin, bytes: Uint8Array): void {
  const actual = sha256Hex(bytes);
  if (actual === pin.sha256) return;
  throw new CompileError(
    'pin_hash_mismatch',
    `pin ${provider}/${document} (${pin.repo}@${pin.commit}:${pin.path}) expects sha256 ${pin.sha256}, the bytes found have sha256 ${actual}`,
    {
      place: { file: `specs/${provider}/pins.json`, pointer: `/${document}/sha256` },
      fix: `restore the original bytes, or move the pin on purpose: npm run pin -- ${provider} ${document} --commit <sha>`,
    },
  );
}

function ensurePinsMatchDocuments(definition: ProviderDefinition, pins: Pins): void {
  const file = `specs/${definition.id}/pins.json`;
  for (const document of Object.keys(definition.documents)) {
    if (pins[document]) continue;
    throw new CompileError('invalid_definition', `document "${document}" has no pin`, {
      place: { file, pointer: `/${document}` },
      fix: `add a pin for "${document}": npm run pin -- ${definition.id} ${document} --commit <sha>`,
    });
  }
  for (const document of Object.keys(pins)) {
    if (definition.documents[document]) continue;
    throw new CompileError(
      'unknown_document',
      `pin "${document}" names a document the definition does not have`,
      {
        place: { file, pointer: `/${document}` },
        fix: `remove it, or add "${document}" to documents in specs/${definition.id}/provider.ts`,
      },
    );
  }
}
