/**
 * What changed in a pinned contract (a tool's, a prompt's, a resource's or a
 * template's), in a form a reviewer reads: a text's words kept, removed and
 * added (the `diff` library's word diff), a JSON value's (schema,
 * annotations, a prompt's arguments) changes as JSON pointers with the value
 * before and after. Deterministic: keys are walked in code-unit order.
 */
import { diffWordsWithSpace } from 'diff';
import { hashJson } from '../../../../generated/catalog-rules.ts';
import { isPlainObject } from '../../base/json-value.ts';

/** The contract fields compared as text, word by word, in the order a review shows them. */
const TEXT_FIELDS = ['name', 'uri', 'uriTemplate', 'title', 'description', 'mimeType'] as const;
/** The contract fields compared as JSON values, after the texts. */
const VALUE_FIELDS = [
  'arguments',
  'inputSchema',
  'outputSchema',
  'annotations',
  'ui',
  'app',
] as const;

export type TextField = (typeof TEXT_FIELDS)[number];
export type ValueField = (typeof VALUE_FIELDS)[number];

/**
 * What changed between two contracts of one tool, prompt, resource or
 * template, for the review: the field whole before and after, and the
 * difference itself (a text's words, a JSON value's pointers).
 */
export type ContractChange =
  | { field: TextField; before: unknown; after: unknown; diff: TextPart[] }
  | { field: ValueField; before: unknown; after: unknown; diff: ValueChange[] };

export function isTextChange(
  change: ContractChange,
): change is Extract<ContractChange, { field: TextField }> {
  return (TEXT_FIELDS as readonly string[]).includes(change.field);
}

export function contractChanges(before: object, after: object): ContractChange[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const changes: ContractChange[] = [];
  for (const field of TEXT_FIELDS) {
    const [x, y] = [a[field] ?? null, b[field] ?? null];
    if (x !== y)
      changes.push({
        field,
        before: x,
        after: y,
        diff: textDiff(String(x ?? ''), String(y ?? '')),
      });
  }
  for (const field of VALUE_FIELDS) {
    const [x, y] = [a[field] ?? null, b[field] ?? null];
    if (hashJson(x) !== hashJson(y))
      changes.push({ field, before: x, after: y, diff: valueDiff(x ?? undefined, y ?? undefined) });
  }
  return changes;
}

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
