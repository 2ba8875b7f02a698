/**
 * A provider definition plus its loaded documents → one catalog. Checks the
 * definition against the documents (every operation it names exists, the verify
 * action is a read, host variables are bounded) and names across documents
 * (a collision is an error, never a silent rename).
 */
import type { Pin, ProviderDefinition, Server } from '../../specs/provider-definition.ts';
import type {
  Catalog,
  CatalogAction,
  CatalogSource,
  InventoryEntry,
  ServerTemplate,
} from '../catalog/format.ts';
import { CompileError } from '../errors.ts';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import { byCodeUnit } from '../openapi/schema-object.ts';
import { type CompiledDocument, compileDocument } from './compile-document.ts';
import { hashJson } from './contract-hash.ts';
import type { DocumentPlan } from './document-plan.ts';
import { TOOL_NAME_PATTERN } from './tool-name.ts';

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
  const plans = documents.map(({ id }) => documentPlan(definition, id));
  const compiled = new Map<string, CompiledDocument>(
    documents.map(({ id, document }, i) => [id, compileDocument(document, plans[i]!)]),
  );
  ensureOperationsExist(definition, compiled);
  const actions = [...compiled.values()]
    .flatMap((c) => c.actions)
    .sort((a, b) => byCodeUnit(a.name, b.name));
  ensureUniqueNames(actions, definition.id);
  ensureVerifyIsRead(definition, actions);
  const inventory = [...compiled.values()]
    .flatMap((c) => c.inventory)
    .sort((a, b) => byCodeUnit(a.document, b.document) || byCodeUnit(a.pointer, b.pointer));
  const sources: CatalogSource[] = documents.map(({ id, pin }) => ({
    document: id,
    ...pin,
    operations: compiled.get(id)!.operations,
  }));
  const formats = new Set([...compiled.values()].flatMap((c) => [...c.annotationFormats]));
  return {
    $comment: banner,
    format: 1,
    provider: { id: definition.id, name: definition.name },
    generator: { ...GENERATOR },
    sources,
    hash: catalogHash(definition.id, actions, inventory),
    hosts: hostsOf(plans.map((p) => p.server)),
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

/** One document compiled the way the provider compiles it, as much of a catalog as a contract diff needs. */
export function documentCatalog(
  definition: ProviderDefinition,
  documentId: string,
  document: OpenApiDocument,
): Pick<Catalog, 'provider' | 'hash' | 'actions'> {
  const { actions, inventory } = compileDocument(document, documentPlan(definition, documentId));
  actions.sort((a, b) => byCodeUnit(a.name, b.name));
  return {
    provider: { id: definition.id, name: definition.name },
    hash: catalogHash(definition.id, actions, inventory),
    actions,
  };
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

/** A variable in the host either has a closed set of values or is set only by the operator. */
function ensureBoundedHost(
  definition: ProviderDefinition,
  documentId: string,
  server: Server,
): void {
  const host = server.url.split('/')[2] ?? '';
  for (const [name, variable] of Object.entries(server.variables)) {
    const place = {
      file: `specs/${definition.id}/provider.ts`,
      pointer: `/documents/${documentId}/server/variables/${name}`,
    };
    if (variable.setting !== undefined && !definition.settings[variable.setting]) {
      throw new CompileError(
        'invalid_definition',
        `server variable "${name}" names setting "${variable.setting}", which is not defined`,
        {
          place,
          fix: `add "${variable.setting}" to settings, or change the variable's setting`,
        },
      );
    }
    if (
      host.includes(`{${name}}`) &&
      !variable.enum &&
      !(variable.operatorOnly && variable.setting)
    ) {
      throw new CompileError(
        'invalid_definition',
        `host variable "${name}" is unbounded: a credential could go anywhere`,
        {
          place,
          fix: 'list its allowed values in enum, or make it operatorOnly with a setting',
        },
      );
    }
  }
  const unknown = [...server.url.matchAll(/\{([^}]+)\}/g)]
    .map((m) => m[1]!)
    .filter((v) => !server.variables[v]);
  if (unknown.length > 0) {
    throw new CompileError(
      'invalid_definition',
      `server URL uses undefined variables: ${unknown.join(', ')}`,
      {
        place: {
          file: `specs/${definition.id}/provider.ts`,
          pointer: `/documents/${documentId}/server/url`,
        },
        fix: 'define each {variable} of the URL under server.variables',
      },
    );
  }
}

function ensureOperationsExist(
  definition: ProviderDefinition,
  compiled: Map<string, CompiledDocument>,
): void {
  const named: Array<[string, string]> = [
    ['verify', definition.verify],
    ...Object.keys(definition.classification).map((k) => ['classification', k] as [string, string]),
    ...Object.keys(definition.exclude).map((k) => ['exclude', k] as [string, string]),
    ...Object.keys(definition.hints).map((k) => ['hints', k] as [string, string]),
  ];
  for (const [field, ref] of named) {
    const [documentId, ...rest] = ref.split(':');
    const key = rest.join(':');
    if (compiled.get(documentId!)?.operationKeys.has(key)) continue;
    throw new CompileError(
      'unknown_operation',
      `${field} names "${ref}", which no pinned document has`,
      {
        place: { file: `specs/${definition.id}/provider.ts`, pointer: `/${field}` },
        fix: 'use <document>:<operationId> (or <document>:<METHOD> <path>) of an operation that exists at the pinned commit',
      },
    );
  }
}

/** A tool name two operations compile to is an error, never a silent rename. `actions` are sorted by name. */
export function ensureUniqueNames(actions: CatalogAction[], provider: string): void {
  for (const [i, b] of actions.entries()) {
    if (!TOOL_NAME_PATTERN.test(b.name)) throw new TypeError(`invalid tool name ${b.name}`);
    const a = actions[i - 1];
    if (a?.name !== b.name) continue;
    throw new CompileError(
      'tool_name_collision',
      `two operations compile to the tool name "${a.name}": ${a.document}#${a.pointer} and ${b.document}#${b.pointer}`,
      {
        place: { file: `specs/${provider}/provider.ts`, pointer: b.pointer },
        fix: 'give the documents different toolPrefix values, or exclude one operation in the definition',
      },
    );
  }
}

function ensureVerifyIsRead(definition: ProviderDefinition, actions: CatalogAction[]): void {
  const [documentId, ...rest] = definition.verify.split(':');
  const key = rest.join(':');
  const action = actions.find(
    (a) =>
      a.document === documentId &&
      (a.operationId ?? `${a.request.method} ${a.request.path}`) === key,
  );
  if (action?.classification === 'read') return;
  throw new CompileError(
    'invalid_definition',
    `the verify action "${definition.verify}" must be an advertised read`,
    {
      place: { file: `specs/${definition.id}/provider.ts`, pointer: '/verify' },
      fix: 'choose a read operation that proves the credential, such as a "get current user" call',
    },
  );
}

/** Concrete hosts from enumerated variables, and the settings that supply operator-chosen hosts. */
export function hostsOf(servers: ServerTemplate[]): Catalog['hosts'] {
  const fixed = new Set<string>();
  const settings = new Set<string>();
  for (const server of servers) {
    const host = server.url.split('/')[2] ?? '';
    const names = [...host.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    let expanded = [host];
    for (const name of names) {
      const variable = server.variables[name];
      if (variable?.operatorOnly && variable.setting) {
        settings.add(variable.setting);
        expanded = [];
        break;
      }
      const values = variable?.enum ?? [];
      expanded = expanded.flatMap((h) => values.map((v) => h.replaceAll(`{${name}}`, v)));
    }
    for (const h of expanded) fixed.add(h);
  }
  return { fixed: [...fixed].sort(byCodeUnit), settings: [...settings].sort(byCodeUnit) };
}
