/**
 * Tool names: `<prefix><snake_case operationId>`, or method + path when the
 * operation has no id, in `[a-z0-9_]` and fitted to the one length limit
 * (`fitToolName`, which the runtime applies to the names it composes too).
 * A compiled name never holds `__`: the runtime reads a name with one as
 * `<connection>__<tool>` (runtime/core/governance/tool-names.ts).
 */

import { fitToolName, TOOL_NAME_MAX } from '../catalog/rules.ts';
import type { Operation } from '../openapi/operation-object.ts';
import { wordsOf } from './classify.ts';

export const TOOL_NAME_PATTERN = new RegExp(`^(?!.*__)[a-z0-9_]{1,${TOOL_NAME_MAX}}$`);

export function toolName(
  prefix: string,
  operation: Pick<Operation, 'operationId' | 'method' | 'path'>,
): string {
  const fromId = snake(wordsOf(operation.operationId));
  const stem = fromId || snake([operation.method, ...pathWords(operation.path)]);
  return fitToolName(`${prefix}${stem}`);
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
