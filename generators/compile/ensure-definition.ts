/**
 * The checks of a provider definition against its documents, each naming the
 * field to change: every operation it names exists, the verify action is a
 * read, host variables are bounded, no two operations share a tool name, and
 * every operation compiles or is excluded with a reason.
 */
import type { Pin, ProviderDefinition, Server } from '../../specs/provider-definition.ts';
import type { CatalogAction } from '../catalog/format.ts';
import { providerToolPrefix, serverVariablePlaces } from '../catalog/rules.ts';
import { CompileError } from '../errors.ts';
import { type CompiledDocument, exclusionKey, NOT_COMPILED } from './compiled-document.ts';
import { actionByRef, splitRef } from './operation-ref.ts';
import { TOOL_NAME_PATTERN } from './tool-name.ts';

/** A variable in the host (`serverVariablePlaces`) either has a closed set of values or is set only by the operator. */
export function ensureBoundedHost(
  definition: ProviderDefinition,
  documentId: string,
  server: Server,
): void {
  const places = serverVariablePlaces(server);
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
    if (places[name] === 'host' && !variable.enum && !(variable.operatorOnly && variable.setting)) {
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

export function ensureOperationsExist(
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
    const { document, key } = splitRef(ref);
    if (compiled.get(document)?.operationKeys.has(key)) continue;
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

/**
 * Every document's tool prefix starts with its provider's id: a connection
 * named after its provider shows the catalog's names unprefixed, and the
 * runtime does so only for names that carry it.
 */
export function ensureToolPrefixes(definition: ProviderDefinition): void {
  const prefix = providerToolPrefix(definition.id);
  for (const [id, document] of Object.entries(definition.documents)) {
    if (document.toolPrefix.startsWith(prefix)) continue;
    throw new CompileError(
      'invalid_definition',
      `the tool prefix "${document.toolPrefix}" does not start with the provider's id (${prefix})`,
      {
        place: {
          file: `specs/${definition.id}/provider.ts`,
          pointer: `/documents/${id}/toolPrefix`,
        },
        fix: `start it with ${prefix}`,
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

export function ensureVerifyIsRead(definition: ProviderDefinition, actions: CatalogAction[]): void {
  if (actionByRef(actions, definition.verify)?.classification === 'read') return;
  throw new CompileError(
    'invalid_definition',
    `the verify action "${definition.verify}" must be an advertised read`,
    {
      place: { file: `specs/${definition.id}/provider.ts`, pointer: '/verify' },
      fix: 'choose a read operation that proves the credential, such as a "get current user" call',
    },
  );
}

/**
 * A curated provider never loses an action silently: an operation of a pinned
 * document that does not compile is an error unless the definition excludes it
 * with a reason (the corpus run, which curates nothing, inventories it instead).
 */
export function ensureEveryOperationCompiled(
  definition: ProviderDefinition,
  compiled: Map<string, { pin: Pin; compiled: CompiledDocument }>,
): void {
  for (const [document, source] of compiled) {
    const failed = source.compiled.inventory.find((e) => NOT_COMPILED.has(e.reason));
    if (!failed) continue;
    const { pin } = source;
    const operation = failed.method
      ? `${failed.method} ${failed.path}`
      : `path item ${failed.path}`;
    const ref = `${document}:${exclusionKey({ ...failed, method: failed.method ?? undefined, operationId: failed.operationId ?? undefined })}`;
    throw new CompileError(
      'operation_not_compiled',
      `${document} (${pin.repo}@${pin.commit.slice(0, 12)}:${pin.path}) ${operation}${failed.operationId ? ` (${failed.operationId})` : ''} cannot be compiled: ${failed.detail} [${failed.reason}]`,
      {
        place: {
          file: `${pin.repo}@${pin.commit.slice(0, 12)}:${pin.path}`,
          pointer: failed.pointer,
        },
        fix: `pin a commit where it compiles, or add "${ref}": "<why it is left out>" to exclude in specs/${definition.id}/provider.ts`,
      },
    );
  }
}
