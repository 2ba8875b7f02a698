/**
 * What Connect your own MCP server's forms share: a refusal shown under the
 * field it names (the field marked invalid and described by it), and the
 * Unverified server label with its host, kept at every step.
 */
import { ApiError } from '../api.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';

/** The refusal's message, when it names this field (`url`, `values.X-Api-Key`, …). */
export function fieldError(error: unknown, ...fields: string[]): string | undefined {
  if (!(error instanceof ApiError) || error.field === undefined) return undefined;
  const field = error.field;
  return fields.some((f) => field === f || field.startsWith(`${f}.`)) ? error.message : undefined;
}

/** Props that mark an input invalid and point it at its error text. */
export function invalidProps(id: string, message: string | undefined) {
  return message === undefined
    ? {}
    : { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` };
}

export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p class="field-error" id={`${id}-error`}>
      Change this field: {shown(message)}
    </p>
  );
}

/**
 * A refusal that names a field of this form: the specifics are under the
 * field; here, which field to change and the reason code. Any other: `Problem`.
 */
export function FormProblem({ error, labels }: { error: unknown; labels: Record<string, string> }) {
  const field = error instanceof ApiError ? error.field : undefined;
  const label = field === undefined ? undefined : labels[field.split('.')[0] ?? field];
  if (!(error instanceof ApiError) || label === undefined) return <Problem error={error} />;
  return (
    <p class="error" role="alert">
      Change the <b>{label}</b> field and try again.{' '}
      <span class="note">
        (reason code <code>{shown(error.code)}</code>)
      </span>
    </p>
  );
}
