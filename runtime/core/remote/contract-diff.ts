/**
 * What changed in a pinned tool's contract, in a form a reviewer reads: a
 * text's words kept, removed and added (the `diff` library's word diff), a
 * JSON value's (schema, annotations) changes as JSON pointers with the value
 * before and after. Deterministic: keys are walked in code-unit order.
 */
import { diffWordsWithSpace } from 'diff';
import { isPlainObject } from '../json-value.ts';

export interface TextPart {
  /** `=` kept, `-` removed, `+` added. */
  op: '=' | '-' | '+';
  text: string;
}

export interface ValueChange {
  /** RFC 6901 pointer into the value (`''` is the whole value). */
  pointer: string;
  /** Absent when the pointer was added. */
  before?: unknown;
  /** Absent when the pointer was removed. */
  after?: unknown;
}

export function textDiff(before: string, after: string): TextPart[] {
  return diffWordsWithSpace(before, after).map((part) => ({
    op: part.added ? '+' : part.removed ? '-' : '=',
    text: part.value,
  }));
}

/** The pointers whose values differ between two JSON values, in document order. */
export function valueDiff(before: unknown, after: unknown, pointer = ''): ValueChange[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [{ pointer, after }];
  if (after === undefined) return [{ pointer, before }];
  const bothObjects = isPlainObject(before) && isPlainObject(after);
  const bothArrays = Array.isArray(before) && Array.isArray(after);
  if (bothObjects || bothArrays) {
    const a = before as Record<string, unknown>;
    const b = after as Record<string, unknown>;
    const keys = bothArrays
      ? Array.from(
          { length: Math.max((before as unknown[]).length, (after as unknown[]).length) },
          (_, i) => String(i),
        )
      : [...new Set([...Object.keys(a), ...Object.keys(b)])].sort((x, y) =>
          x < y ? -1 : x > y ? 1 : 0,
        );
    return keys.flatMap((key) => valueDiff(a[key], b[key], `${pointer}/${escapePointer(key)}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ pointer, before, after }];
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
