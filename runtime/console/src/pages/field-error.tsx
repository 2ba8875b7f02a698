/**
 * A refusal shown under the field it names, the same in every connect form
 * (your own MCP server, a gallery app): the field marked invalid and
 * described by it (`<field id>-error`), its message and reason code,
 * announced as it appears.
 */
import { ApiError } from '../api.ts';
import { shown } from '../shown.ts';

/** The refusal, when it names this field (`url`, `values.X-Api-Key`, …). */
export function fieldError(error: unknown, ...fields: string[]): ApiError | undefined {
  if (!(error instanceof ApiError) || error.field === undefined) return undefined;
  const field = error.field;
  return fields.some((f) => field === f || field.startsWith(`${f}.`)) ? error : undefined;
}

/** Props that mark the input `field` invalid and point it at its error text. */
export function invalidProps(field: string, error: unknown) {
  return error instanceof ApiError
    ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${field}-error` }
    : {};
}

/** Under the input `field`: the refusal `error`, when there is one. */
export function FieldError({ field, error }: { field: string; error: unknown }) {
  if (!(error instanceof ApiError)) return null;
  return (
    <p class="field-error" id={`${field}-error`} role="alert">
      Change this field: {shown(error.message)}{' '}
      <span class="note">
        (reason code <code>{shown(error.code)}</code>)
      </span>
    </p>
  );
}
