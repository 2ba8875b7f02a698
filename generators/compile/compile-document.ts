/**
 * One OpenAPI document → actions and inventory: normalize every operation,
 * classify it, name it, build its input schema and hash its contract. An
 * operation that cannot be compiled is inventoried with its reason.
 */
import type {
  CatalogAction,
  InventoryEntry,
  ParameterSpec,
  RequestSpec,
} from '../catalog/format.ts';
import { hashJson } from '../catalog/rules.ts';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import type { Operation } from '../openapi/operation-object.ts';
import type { Parameter } from '../openapi/parameter-object.ts';
import { walkPaths } from '../openapi/paths-object.ts';
import { SchemaConverter } from '../openapi/schema-object.ts';
import { classify } from './classify.ts';
import { type CompiledDocument, exclusionKey, NOT_COMPILED } from './compiled-document.ts';
import type { DocumentPlan } from './document-plan.ts';
import { inputSchema } from './input-schema.ts';
import { operationKey } from './operation-ref.ts';
import { toolName } from './tool-name.ts';

const IDEMPOTENT = new Set(['get', 'head', 'options', 'trace', 'put', 'delete']);

export function compileDocument(document: OpenApiDocument, plan: DocumentPlan): CompiledDocument {
  const converter = new SchemaConverter(document.root, document.version);
  const walked = walkPaths(document, converter);
  const defHashes = new Map<string, string>();
  const defHash = (key: string) => {
    const known = defHashes.get(key);
    if (known !== undefined) return known;
    const hash = hashJson(converter.definition(key));
    defHashes.set(key, hash);
    return hash;
  };

  const inventory: InventoryEntry[] = walked.exclusions.map((e) => {
    // An operation that does not compile, which the definition excludes with its reason.
    const excluded = NOT_COMPILED.has(e.reason) ? plan.exclude.get(exclusionKey(e)) : undefined;
    return {
      document: plan.id,
      pointer: e.pointer,
      method: e.method?.toUpperCase() ?? null,
      path: e.path,
      operationId: e.operationId ?? null,
      reason: excluded === undefined ? e.reason : 'excluded_by_definition',
      detail: excluded === undefined ? e.detail : `${excluded} (it does not compile: ${e.detail})`,
    };
  });
  const operationKeys = new Set<string>();
  for (const e of walked.exclusions) operationKeys.add(exclusionKey(e));

  const actions: CatalogAction[] = [];
  for (const operation of walked.operations) {
    const key = operationKey(operation);
    operationKeys.add(key);
    const excluded = plan.exclude.get(key);
    if (excluded !== undefined) {
      inventory.push({
        document: plan.id,
        pointer: operation.pointer,
        method: operation.method.toUpperCase(),
        path: operation.path,
        operationId: operation.operationId ?? null,
        reason: 'excluded_by_definition',
        detail: excluded,
      });
      continue;
    }
    const name = toolName(plan.toolPrefix, operation);
    const { classification, rule, detail } = classify(operation, plan.classification.get(key));
    const request = requestOf(operation, plan);
    const hints = plan.hints.get(key) ?? {};
    const schema = inputSchema(operation, plan.server);
    const defs = converter.closure(operation.refs);
    const contractHash = hashJson({
      name,
      classification,
      request,
      hints,
      extensions: operation.extensions,
      inputSchema: schema,
      defs: Object.fromEntries(defs.map((k) => [k, defHash(k)])),
    });
    const title = operation.summary ?? name;
    actions.push({
      name,
      title,
      description: describe(operation),
      document: plan.id,
      operationId: operation.operationId ?? null,
      pointer: operation.pointer,
      deprecated: operation.deprecated,
      classification,
      classifiedBy: { rule, detail },
      annotations: {
        title,
        readOnlyHint: classification === 'read',
        destructiveHint: classification === 'destructive',
        idempotentHint: IDEMPOTENT.has(operation.method),
        openWorldHint: true,
      },
      request,
      hints,
      extensions: operation.extensions,
      inputSchema:
        defs.length === 0
          ? schema
          : { ...schema, $defs: Object.fromEntries(defs.map((k) => [k, converter.definition(k)])) },
      contractHash,
      ...(operation.droppedHeaders.length === 0
        ? {}
        : { leftOutHeaders: operation.droppedHeaders.map((header) => header.name) }),
    });
  }
  return {
    actions,
    inventory,
    operations: walked.operations.length + walked.exclusions.filter((e) => e.fromPaths).length,
    annotationFormats: converter.annotationFormats,
    operationKeys,
  };
}

function describe(operation: Operation): string {
  const parts = [
    operation.deprecated ? 'Deprecated.' : undefined,
    operation.summary,
    operation.description,
  ].filter((p): p is string => p !== undefined);
  const unique = parts.filter((p, i) => parts.indexOf(p) === i);
  return unique.length > 0
    ? unique.join('\n\n')
    : `${operation.method.toUpperCase()} ${operation.path}`;
}

function requestOf(operation: Operation, plan: DocumentPlan): RequestSpec {
  const body = operation.requestBody;
  return {
    method: operation.method.toUpperCase(),
    path: operation.path,
    server: plan.server,
    parameters: operation.parameters.map(parameterSpec),
    body: body
      ? {
          required: body.required,
          contentType: body.contentType,
          ...(body.encoding ? { encoding: body.encoding } : {}),
          kind: body.kind,
          ...(body.contentTypes.length > 1 ? { offered: body.contentTypes } : {}),
          chosenBecause: body.chosenBecause,
          ...(body.alternatives.length > 0 ? { alternatives: body.alternatives } : {}),
          ...(body.files.length > 0 ? { files: body.files } : {}),
        }
      : null,
    credential:
      plan.credential === 'always' ||
      operation.security.some((alternative) => alternative.length > 0),
  };
}

function parameterSpec(parameter: Parameter): ParameterSpec {
  return {
    name: parameter.name,
    in: parameter.in,
    required: parameter.required,
    ...parameter.serialization,
  };
}
