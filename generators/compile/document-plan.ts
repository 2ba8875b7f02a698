/**
 * What the compiler needs to know about one document beyond the document
 * itself: the tool prefix, the server, and the curated per-operation choices.
 * Built from a provider definition, or derived from the document alone.
 */
import type { ProviderDefinition } from '../../specs/provider-definition.ts';
import type { ActionHints, ServerTemplate, ServerVariableSpec } from '../catalog/format.ts';
import { CompileError } from '../errors.ts';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import { isObject } from '../openapi/refs.ts';
import type { ClassificationOverride } from './classify.ts';
import { ensureBoundedHost } from './ensure-definition.ts';

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

/** How the definition says to compile one of its documents. */
export function documentPlan(definition: ProviderDefinition, documentId: string): DocumentPlan {
  const document = definition.documents[documentId];
  if (!document) {
    throw new CompileError(
      'unknown_document',
      `provider "${definition.id}" defines no document "${documentId}"`,
      {
        place: { file: `specs/${definition.id}/pins.json`, pointer: `/${documentId}` },
        fix: `pin only documents named in specs/${definition.id}/provider.ts: ${Object.keys(definition.documents).join(', ')}`,
      },
    );
  }
  ensureBoundedHost(definition, documentId, document.server);
  const forDocument = <T>(record: Record<string, T>) =>
    new Map(
      Object.entries(record)
        .filter(([key]) => key.startsWith(`${documentId}:`))
        .map(([key, value]) => [key.slice(documentId.length + 1), value] as const),
    );
  const hints = forDocument(definition.hints);
  return {
    id: documentId,
    toolPrefix: document.toolPrefix,
    server: {
      url: document.server.url,
      variables: Object.fromEntries(
        Object.entries(document.server.variables).map(([name, v]) => [
          name,
          {
            description: v.description,
            ...(v.enum ? { enum: v.enum } : {}),
            ...(v.setting ? { setting: v.setting } : {}),
            ...(v.setting && definition.settings[v.setting]?.default !== undefined
              ? { default: definition.settings[v.setting]!.default! }
              : {}),
            ...(v.pattern ? { pattern: v.pattern } : {}),
            operatorOnly: v.operatorOnly,
          },
        ]),
      ),
    },
    credential: document.credential,
    classification: forDocument(definition.classification),
    exclude: forDocument(definition.exclude),
    hints: new Map(
      [...hints].map(([key, { stillRunningStatuses }]) => [key, { stillRunningStatuses }]),
    ),
  };
}
