/**
 * Tool names: `<prefix><snake_case operationId>`, or method + path when the
 * operation has no id. Valid MCP tool names (`[a-z0-9_]`, at most 64
 * characters). A name that would be longer keeps a readable start and ends in
 * a hash of the full name, so it stays deterministic and distinct.
 */
import type { Operation } from '../openapi/operation-object.ts';
import { wordsOf } from './classify.ts';
import { sha256Hex } from './contract-hash.ts';

export const MAX_TOOL_NAME = 64;
export const TOOL_NAME_PATTERN = /^[a-z0-9_]{1,64}$/;

export function toolName(
  prefix: string,
  operation: Pick<Operation, 'operationId' | 'method' | 'path'>,
): string {
  const fromId = snake(wordsOf(operation.operationId));
  const stem = fromId || snake([operation.method, ...pathWords(operation.path)]);
  return shorten(`${prefix}${stem}`);
}

function pathWords(path: string): string[] {
  return path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment)?.[1];
      return parameter ? ['by', ...wordsOf(parameter)] : wordsOf(segment);
    });
}

function snake(words: string[]): string {
  return words.join('_');
}

function shorten(name: string): string {
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = sha256Hex(name).slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1).replace(/_+$/, '')}_${hash}`;
}
