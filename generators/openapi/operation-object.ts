/** Operation Object → the compiler's normalized operation (the IR). */
import { OperationError } from '../errors.ts';
import { childPointer } from './json-pointer.ts';
import { type DroppedHeader, mergeParameters, type Parameter } from './parameter-object.ts';
import { isObject } from './refs.ts';
import { normalizeRequestBody, type RequestBody } from './request-body-object.ts';
import type { SchemaConverter } from './schema-object.ts';

export const HTTP_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface Operation {
  pointer: string;
  method: HttpMethod;
  path: string;
  operationId: string | undefined;
  summary: string | undefined;
  description: string | undefined;
  deprecated: boolean;
  parameters: Parameter[];
  requestBody: RequestBody | undefined;
  /** Effective security requirements: each entry is one alternative, a list of scheme names. */
  security: string[][];
  /** `x-*` fields of the operation, kept as written. */
  extensions: Record<string, unknown>;
  /** Keys of the schema definitions the operation refers to directly. */
  refs: Set<string>;
  /** Optional header parameters left out because the gateway sets that header itself. */
  droppedHeaders: DroppedHeader[];
}

export interface OperationContext {
  root: Record<string, unknown>;
  converter: SchemaConverter;
  path: string;
  method: HttpMethod;
  pathItem: Record<string, unknown>;
  pathItemPointer: string;
}

export function normalizeOperation(
  node: unknown,
  pointer: string,
  context: OperationContext,
): Operation {
  if (!isObject(node))
    throw new OperationError('invalid_operation', pointer, 'an operation must be an object');
  const { root, converter, path, method, pathItem, pathItemPointer } = context;
  const refs = new Set<string>();
  const droppedHeaders: DroppedHeader[] = [];
  const parameters: Parameter[] = mergeParameters(
    root,
    [
      { list: pathItem.parameters, pointer: childPointer(pathItemPointer, 'parameters') },
      { list: node.parameters, pointer: childPointer(pointer, 'parameters') },
    ],
    path,
    converter,
    refs,
    droppedHeaders,
  );
  const requestBody =
    node.requestBody === undefined
      ? undefined
      : normalizeRequestBody(
          root,
          node.requestBody,
          childPointer(pointer, 'requestBody'),
          converter,
          refs,
        );

  return {
    pointer,
    method,
    path,
    operationId:
      typeof node.operationId === 'string' && node.operationId.trim() !== ''
        ? node.operationId
        : undefined,
    summary: text(node.summary),
    description: text(node.description),
    deprecated: node.deprecated === true,
    parameters,
    requestBody,
    security: securityOf(node.security ?? root.security),
    extensions: Object.fromEntries(Object.entries(node).filter(([key]) => key.startsWith('x-'))),
    refs,
    droppedHeaders,
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function securityOf(requirements: unknown): string[][] {
  if (!Array.isArray(requirements)) return [];
  return requirements.filter(isObject).map((requirement) => Object.keys(requirement).sort());
}

/** The media types of the operation's success replies (2xx and `default`). */
export function successMediaTypes(node: Record<string, unknown>): string[] {
  const responses = isObject(node.responses) ? node.responses : {};
  const types: string[] = [];
  for (const [status, response] of Object.entries(responses)) {
    if (
      !/^(2\d\d|2XX|default)$/i.test(status) ||
      !isObject(response) ||
      !isObject(response.content)
    )
      continue;
    types.push(...Object.keys(response.content).map((t) => t.split(';')[0]!.trim().toLowerCase()));
  }
  return types;
}
