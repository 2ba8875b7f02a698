/**
 * What compiling one OpenAPI document yields (its actions, its inventory, the
 * operation keys it holds), which inventory reasons mean an operation could
 * not be compiled, and how a definition names one it leaves out. The compiler
 * (`compile-document.ts`) writes it; the definition checks
 * (`ensure-definition.ts`) read it.
 */
import type { CatalogAction, InventoryEntry, InventoryReason } from '../catalog/format.ts';
import { operationKey } from './operation-ref.ts';

export interface CompiledDocument {
  actions: CatalogAction[];
  inventory: InventoryEntry[];
  /** Operations under `paths`, whether advertised or inventoried. */
  operations: number;
  annotationFormats: Set<string>;
  /** Operation keys of this document, so a definition naming a missing one can be caught. */
  operationKeys: Set<string>;
}

/** Inventory reasons that mean "could not be compiled", not "deliberately not advertised". */
export const NOT_COMPILED: ReadonlySet<InventoryReason> = new Set([
  'unresolvable_ref',
  'external_ref',
  'invalid_operation',
]);

/** How a definition names an operation left out: by its key, or `* <path>` for a path item that does not resolve. */
export function exclusionKey(e: {
  method: string | undefined;
  path: string;
  operationId: string | undefined;
}): string {
  return e.method ? operationKey({ ...e, method: e.method }) : `* ${e.path}`;
}
