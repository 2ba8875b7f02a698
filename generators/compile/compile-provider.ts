/**
 * A provider definition plus its loaded documents → one catalog, after the
 * definition's checks (`ensure-definition.ts`) pass.
 */
import type { Pin, ProviderDefinition } from '../../specs/provider-definition.ts';
import type { Catalog, CatalogAction, InventoryEntry } from '../catalog/format.ts';
import { hashJson } from '../catalog/rules.ts';
import { byCodeUnit } from '../code-unit-order.ts';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import { compileDocument } from './compile-document.ts';
import type { CompiledDocument } from './compiled-document.ts';
import { type DocumentPlan, documentPlan } from './document-plan.ts';
import {
  ensureEveryOperationCompiled,
  ensureOperationsExist,
  ensureToolPrefixes,
  ensureUniqueNames,
  ensureVerifyIsRead,
} from './ensure-definition.ts';
import { serverHosts } from './server-hosts.ts';

export const GENERATOR = { name: 'portcullis-catalog-compiler', version: '1.0.0' } as const;

export interface PinnedDocument {
  id: string;
  pin: Pin;
  document: OpenApiDocument;
}

export function compileProvider(
  definition: ProviderDefinition,
  documents: PinnedDocument[],
  banner: string,
): Catalog {
  ensureToolPrefixes(definition);
  const sources = documents.map(({ id, pin, document }) => {
    const plan = documentPlan(definition, id);
    return { id, pin, plan, compiled: compileDocument(document, plan) };
  });
  ensureOperationsExist(definition, new Map(sources.map((s) => [s.id, s.compiled])));
  ensureEveryOperationCompiled(definition, new Map(sources.map((s) => [s.id, s])));
  const catalog = assembleCatalog({ id: definition.id, name: definition.name }, sources, banner);
  ensureVerifyIsRead(definition, catalog.actions);
  return catalog;
}

export interface CompiledSource {
  id: string;
  pin: Pin;
  plan: DocumentPlan;
  compiled: CompiledDocument;
}

/** Compiled documents → one catalog: actions sorted by name (and checked unique), inventory, counts, hashes. */
export function assembleCatalog(
  provider: Catalog['provider'],
  sources: CompiledSource[],
  banner: string,
): Catalog {
  const actions = sources
    .flatMap((s) => s.compiled.actions)
    .sort((a, b) => byCodeUnit(a.name, b.name));
  ensureUniqueNames(actions, provider.id);
  const inventory = sources
    .flatMap((s) => s.compiled.inventory)
    .sort((a, b) => byCodeUnit(a.document, b.document) || byCodeUnit(a.pointer, b.pointer));
  const formats = new Set(sources.flatMap((s) => [...s.compiled.annotationFormats]));
  return {
    $comment: banner,
    format: 1,
    provider,
    generator: { ...GENERATOR },
    sources: sources.map(({ id, pin, compiled }) => ({
      document: id,
      ...pin,
      operations: compiled.operations,
    })),
    hash: catalogHash(provider.id, actions, inventory),
    hosts: serverHosts(sources.map((s) => s.plan.server)),
    annotationFormats: [...formats].sort(byCodeUnit),
    counts: {
      read: actions.filter((a) => a.classification === 'read').length,
      write: actions.filter((a) => a.classification === 'write').length,
      destructive: actions.filter((a) => a.classification === 'destructive').length,
      inventory: inventory.length,
    },
    actions,
    inventory,
  };
}

/** One pinned document compiled the way the provider compiles it, for a contract diff. */
export function documentCatalog(
  definition: ProviderDefinition,
  { id, pin, document }: PinnedDocument,
): Catalog {
  const plan = documentPlan(definition, id);
  const source = { id, pin, plan, compiled: compileDocument(document, plan) };
  return assembleCatalog({ id: definition.id, name: definition.name }, [source], '');
}

export function catalogHash(
  provider: string,
  actions: CatalogAction[],
  inventory: InventoryEntry[],
): string {
  return hashJson({
    provider,
    actions: actions.map((a) => [a.name, a.contractHash]),
    inventory: inventory.map((e) => [e.document, e.pointer, e.reason]),
  });
}
