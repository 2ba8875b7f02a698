/** Following `$ref` for the objects that are not schemas: parameters, request bodies, responses, path items. */
import { OperationError } from '../errors.ts';
import { internalRefPointer, valueAt } from './json-pointer.ts';

export interface Located {
  node: Record<string, unknown>;
  /** Where the object really is (after following every `$ref`). */
  pointer: string;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Follows a chain of `$ref`s from `pointer` to the object it names. */
export function followRef(root: unknown, node: unknown, pointer: string): Located {
  let current = node;
  let at = pointer;
  const seen = new Set<string>();
  while (isObject(current) && typeof current.$ref === 'string') {
    const ref = current.$ref;
    const target = internalRefPointer(ref);
    if (target === undefined) {
      throw new OperationError(
        'external_ref',
        at,
        `$ref "${ref}" points outside the document; bundle it first`,
      );
    }
    if (seen.has(target))
      throw new OperationError('unresolvable_ref', at, `$ref "${ref}" is a circular chain`);
    seen.add(target);
    current = valueAt(root, target);
    if (current === undefined)
      throw new OperationError(
        'unresolvable_ref',
        at,
        `$ref "${ref}" names nothing in the document`,
      );
    at = target;
  }
  if (!isObject(current)) throw new OperationError('invalid_operation', at, 'expected an object');
  return { node: current, pointer: at };
}
