/**
 * Paths Object (and `webhooks`, and operation `callbacks`) → operations to
 * compile, plus the operations that are deliberately not advertised.
 */
import type { ExclusionReason } from '../errors.ts';
import { OperationError } from '../errors.ts';
import { childPointer } from './json-pointer.ts';
import type { OpenApiDocument } from './load-document.ts';
import {
  HTTP_METHODS,
  type HttpMethod,
  normalizeOperation,
  type Operation,
  successMediaTypes,
} from './operation-object.ts';
import { followRef, isObject } from './refs.ts';
import type { SchemaConverter } from './schema-object.ts';

export interface Exclusion {
  pointer: string;
  method: HttpMethod | undefined;
  path: string;
  operationId: string | undefined;
  reason: ExclusionReason;
  detail: string;
  /** Whether it is one of the document's `paths` operations (and so counts towards its total). */
  fromPaths: boolean;
}

export interface WalkedDocument {
  operations: Operation[];
  exclusions: Exclusion[];
}

export function walkPaths(document: OpenApiDocument, converter: SchemaConverter): WalkedDocument {
  const { root } = document;
  const operations: Operation[] = [];
  const exclusions: Exclusion[] = [];
  const paths = isObject(root.paths) ? root.paths : {};

  for (const [path, entry] of Object.entries(paths)) {
    const entryPointer = childPointer('/paths', path);
    let pathItem: Record<string, unknown>;
    let pathItemPointer: string;
    try {
      ({ node: pathItem, pointer: pathItemPointer } = followRef(root, entry, entryPointer));
    } catch (error) {
      if (!(error instanceof OperationError)) throw error;
      exclusions.push({
        ...describe(error),
        method: undefined,
        path,
        operationId: undefined,
        fromPaths: true,
      });
      continue;
    }
    for (const method of HTTP_METHODS) {
      const node = pathItem[method];
      if (node === undefined) continue;
      const pointer = childPointer(pathItemPointer, method);
      const operationId =
        isObject(node) && typeof node.operationId === 'string' ? node.operationId : undefined;
      const base = { pointer, method, path, operationId, fromPaths: true };
      if (isObject(node) && isEventStream(node)) {
        exclusions.push({
          ...base,
          reason: 'event_stream',
          detail: 'replies with a server-sent event stream',
        });
        continue;
      }
      try {
        operations.push(
          normalizeOperation(node, pointer, {
            root,
            converter,
            path,
            method,
            pathItem,
            pathItemPointer,
          }),
        );
      } catch (error) {
        if (!(error instanceof OperationError)) throw error;
        exclusions.push({ ...base, ...describe(error) });
      }
      if (isObject(node) && isObject(node.callbacks))
        exclusions.push(...callbacksOf(node.callbacks, pointer));
    }
  }
  if (isObject(root.webhooks)) {
    for (const [name, item] of Object.entries(root.webhooks)) {
      for (const method of methodsOf(item)) {
        exclusions.push({
          pointer: childPointer('/webhooks', name, method),
          method,
          path: name,
          operationId: operationIdOf(item, method),
          reason: 'webhook',
          detail: 'a request the provider sends, not one an agent can make',
          fromPaths: false,
        });
      }
    }
  }
  return { operations, exclusions };
}

function describe(error: OperationError): {
  pointer: string;
  reason: ExclusionReason;
  detail: string;
} {
  return { pointer: error.pointer, reason: error.reason, detail: error.message };
}

function isEventStream(node: Record<string, unknown>): boolean {
  const types = successMediaTypes(node);
  return types.length > 0 && types.every((t) => t === 'text/event-stream');
}

function callbacksOf(callbacks: Record<string, unknown>, pointer: string): Exclusion[] {
  const found: Exclusion[] = [];
  for (const [name, callback] of Object.entries(callbacks)) {
    if (!isObject(callback)) continue;
    for (const [expression, item] of Object.entries(callback)) {
      for (const method of methodsOf(item)) {
        found.push({
          pointer: childPointer(pointer, 'callbacks', name, expression, method),
          method,
          path: expression,
          operationId: operationIdOf(item, method),
          reason: 'callback',
          detail: `callback "${name}": a request the provider sends back, not one an agent can make`,
          fromPaths: false,
        });
      }
    }
  }
  return found;
}

function methodsOf(item: unknown): HttpMethod[] {
  return isObject(item) ? HTTP_METHODS.filter((m) => isObject(item[m])) : [];
}

function operationIdOf(item: unknown, method: HttpMethod): string | undefined {
  const node = isObject(item) ? item[method] : undefined;
  return isObject(node) && typeof node.operationId === 'string' ? node.operationId : undefined;
}
