/**
 * What was wrong with an operator's input, in words a person can act on:
 * which field, what it takes, what it got (never for a credential) and the
 * nearest valid word where one is near. zod's own messages ("Invalid option:
 * expected one of "read"|"write"") name neither the field nor a fix.
 */
import type { z } from 'zod';
import { didYouMean } from '../base/nearest-word.ts';

export interface InputProblem {
  /** Dotted path of the field to change (`classification`, `settings.metro`, `input`). */
  field: string;
  /** What the field takes and what it got. */
  text: string;
}

export function inputProblem(
  issue: z.core.$ZodIssue,
  input: unknown,
  knownFields: readonly string[] = [],
): InputProblem {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return {
      field: [...path, key].join('.'),
      text: `is not a field this takes${knownFields.length > 0 ? ` (it takes ${knownFields.join(', ')})` : ''}${didYouMean(key, knownFields)}`,
    };
  }
  const field = path.join('.') || 'input';
  const value = valueAt(input, issue.path);
  // Whatever a credential holds is never repeated back.
  const shown = path.includes('credential') ? undefined : value;
  const got = shown === undefined ? '' : `, got ${JSON.stringify(shown)}`;
  switch (issue.code) {
    case 'invalid_value': {
      const words = issue.values.map(String);
      const near = typeof shown === 'string' ? didYouMean(shown, words) : '';
      return { field, text: `expected one of ${words.join(', ')}${got}${near}` };
    }
    case 'invalid_type':
      return value === undefined
        ? { field, text: `is required (${article(issue.expected)})` }
        : { field, text: `expected ${article(issue.expected)}${got}` };
    case 'too_small':
      return {
        field,
        text:
          issue.origin === 'string'
            ? 'must not be empty'
            : `needs at least ${String(issue.minimum)}${got}`,
      };
    case 'too_big':
      return { field, text: `takes at most ${String(issue.maximum)}${got}` };
    case 'invalid_format':
      return { field, text: `expected ${issue.message}${got}` };
    default:
      return { field, text: issue.message };
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
