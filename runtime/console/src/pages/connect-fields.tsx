/**
 * What Connect your own MCP server's forms share besides the error under a
 * field (`field-error.tsx`): the refusal above the form, naming the field to
 * change.
 */
import { ApiError } from '../api.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';

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
