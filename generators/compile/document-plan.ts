/**
 * What the compiler needs to know about one document beyond the document
 * itself: the tool prefix, the server, and the curated per-operation choices.
 * Built from a provider definition, or derived from the document alone.
 */
import type { ActionHints, ServerTemplate, ServerVariableSpec } from '../catalog/format.ts';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import type { Operation } from '../openapi/operation-object.ts';
import { isObject } from '../openapi/refs.ts';
import type { ClassificationOverride } from './classify.ts';

export interface DocumentPlan {
  id: string;
  toolPrefix: string;
  server: ServerTemplate;
  credential: 'always' | 'as-declared';
  /** Keyed by operation key (see {@link operationKey}). */
  classification: ReadonlyMap<string, ClassificationOverride>;
  exclude: ReadonlyMap<string, string>;
  hints: ReadonlyMap<string, ActionHints>;
}

/** How a definition names an operation: its id, or `METHOD /path`. */
export function operationKey(
  operation: Pick<Operation, 'operationId' | 'method' | 'path'>,
): string {
  return operation.operationId ?? `${operation.method.toUpperCase()} ${operation.path}`;
}

/** A plan for a document nobody curated: its own first server, its own security. */
export function planFromDocument(
  document: OpenApiDocument,
  id: string,
  toolPrefix: string,
): DocumentPlan {
  return {
    id,
    toolPrefix,
    server: serverOf(document.root.servers),
    credential: 'as-declared',
    classification: new Map(),
    exclude: new Map(),
    hints: new Map(),
  };
}

function serverOf(servers: unknown): ServerTemplate {
  const first = Array.isArray(servers) ? servers.find(isObject) : undefined;
  const url = typeof first?.url === 'string' ? first.url : '/';
  const variables: Record<string, ServerVariableSpec> = {};
  if (isObject(first?.variables)) {
    for (const [name, variable] of Object.entries(first.variables)) {
      if (!isObject(variable)) continue;
      const values = Array.isArray(variable.enum)
        ? variable.enum.filter((v): v is string => typeof v === 'string')
        : [];
      variables[name] = {
        ...(typeof variable.description === 'string' ? { description: variable.description } : {}),
        ...(values.length > 0 ? { enum: values } : {}),
        ...(typeof variable.default === 'string' ? { default: variable.default } : {}),
        operatorOnly: false,
      };
    }
  }
  return { url, variables };
}
