/** A refusal as the console shows it: what happened and what to change, with its reason code. */
import { ApiError } from './api.ts';
import { shown } from './shown.ts';

export function Problem({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const known = error instanceof ApiError ? error : undefined;
  return (
    <p class="error" role="alert">
      {shown(known?.message ?? String(error))}
      {known ? (
        <>
          {' '}
          <span class="note">
            (reason code <code>{known.code}</code>
            {known.field ? (
              <>
                ; change <code>{shown(known.field)}</code>
              </>
            ) : null}
            )
          </span>
        </>
      ) : null}
    </p>
  );
}
