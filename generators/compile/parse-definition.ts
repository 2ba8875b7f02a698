/** A definition's text through its zod schema, or one `invalid_definition` naming the first field to change. */
import type { z } from 'zod';
import { CompileError } from '../errors.ts';

export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  value: unknown,
  file: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const pointer = issue.path.map((p) => `/${String(p)}`).join('');
  throw new CompileError(
    'invalid_definition',
    `${issue.message}${result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : ''}`,
    {
      place: { file, pointer },
      fix: `change the value at ${pointer || 'the top level'}: ${issue.message}`,
    },
  );
}
