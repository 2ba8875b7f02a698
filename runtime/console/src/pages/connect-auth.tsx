/**
 * Advanced authentication, collapsed by default (seed 000): no sign-in
 * needed, a key or token (sent as `Authorization`), custom headers, or a
 * browser sign-in with a client ID and secret the operator registered.
 * Values are write-only: password fields, emptied once sent, never read
 * back; only header names stay on screen.
 */
import type { AuthChoice, HeaderRow } from '../connect-types.ts';
import { FieldError, fieldError, invalidProps } from './field-error.tsx';

export interface AuthState {
  choice: AuthChoice;
  key: string;
  headers: HeaderRow[];
  clientId: string;
  clientSecret: string;
}

export const NO_AUTH: AuthState = {
  choice: 'none',
  key: '',
  headers: [{ name: '', value: '' }],
  clientId: '',
  clientSecret: '',
};

const CHOICES: Array<{ value: AuthChoice; label: string; hint: string }> = [
  {
    value: 'none',
    label: 'No sign-in needed',
    hint: 'The server is open to anyone with the address.',
  },
  { value: 'key', label: 'Key or token', hint: 'Sent as an Authorization header.' },
  { value: 'headers', label: 'Custom headers', hint: 'For servers that name their own headers.' },
  {
    value: 'browser',
    label: 'Browser sign-in',
    hint: 'Optionally with a client ID and secret you registered yourself.',
  },
];

export function AdvancedAuthentication({
  auth,
  setAuth,
  open,
  setOpen,
  error,
}: {
  auth: AuthState;
  setAuth: (next: AuthState) => void;
  open: boolean;
  setOpen: (open: boolean) => void;
  error: unknown;
}) {
  const keyError = fieldError(error, 'token', 'credential');
  const headersError = fieldError(error, 'headers', 'credential');
  const clientError = fieldError(error, 'clientId', 'client_id');
  const setRow = (index: number, row: Partial<HeaderRow>) =>
    setAuth({
      ...auth,
      headers: auth.headers.map((r, i) => (i === index ? { ...r, ...row } : r)),
    });
  return (
    <details
      class="advanced-auth"
      open={open}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>Advanced authentication</summary>
      <fieldset class="choices">
        <legend>How the server authenticates</legend>
        {CHOICES.map((choice) => (
          <label key={choice.value} class="choice">
            <input
              type="radio"
              name="auth-choice"
              value={choice.value}
              checked={auth.choice === choice.value}
              onChange={() => setAuth({ ...auth, choice: choice.value })}
            />
            <span>
              {choice.label} <span class="note">{choice.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {auth.choice === 'key' ? (
        <>
          <label for="auth-key">Key or token</label>
          <input
            id="auth-key"
            type="password"
            autocomplete="off"
            value={auth.key}
            onInput={(e) => setAuth({ ...auth, key: e.currentTarget.value })}
            {...invalidProps('auth-key', keyError)}
          />
          <FieldError field="auth-key" error={keyError} />
          <p class="note">Stored sealed; never shown again.</p>
        </>
      ) : null}
      {auth.choice === 'headers' ? (
        <div class="header-rows">
          {auth.headers.map((row, index) => (
            <div class="header-row" key={index}>
              <div>
                <label for={`header-name-${index}`}>Header name</label>
                <input
                  id={`header-name-${index}`}
                  autocomplete="off"
                  spellcheck={false}
                  value={row.name}
                  onInput={(e) => setRow(index, { name: e.currentTarget.value })}
                  {...invalidProps('headers', headersError)}
                />
              </div>
              <div>
                <label for={`header-value-${index}`}>Header value</label>
                <input
                  id={`header-value-${index}`}
                  type="password"
                  autocomplete="off"
                  value={row.value}
                  onInput={(e) => setRow(index, { value: e.currentTarget.value })}
                />
              </div>
            </div>
          ))}
          <FieldError field="headers" error={headersError} />
          <div class="actions tight">
            <button
              type="button"
              onClick={() =>
                setAuth({ ...auth, headers: [...auth.headers, { name: '', value: '' }] })
              }
            >
              Add a header
            </button>
          </div>
          <p class="note">Values are stored sealed and never shown again; only header names are.</p>
        </div>
      ) : null}
      {auth.choice === 'browser' ? (
        <>
          <p class="note">
            Leave these empty unless the provider requires a client you registered yourself.
          </p>
          <label for="client-id">Client ID</label>
          <input
            id="client-id"
            autocomplete="off"
            spellcheck={false}
            value={auth.clientId}
            onInput={(e) => setAuth({ ...auth, clientId: e.currentTarget.value })}
            {...invalidProps('client-id', clientError)}
          />
          <FieldError field="client-id" error={clientError} />
          <label for="client-secret">Client secret</label>
          <input
            id="client-secret"
            type="password"
            autocomplete="off"
            value={auth.clientSecret}
            onInput={(e) => setAuth({ ...auth, clientSecret: e.currentTarget.value })}
          />
        </>
      ) : null}
    </details>
  );
}

/** What the address check sends for the chosen authentication (a browser sign-in sends nothing yet). */
export function connectCredential(auth: AuthState): {
  token?: string;
  headers?: Record<string, string>;
} {
  if (auth.choice === 'key' && auth.key !== '') return { token: auth.key };
  if (auth.choice === 'headers') {
    const rows = auth.headers.filter((row) => row.name.trim() !== '');
    if (rows.length > 0)
      return { headers: Object.fromEntries(rows.map((row) => [row.name.trim(), row.value])) };
  }
  return {};
}

/** The same choice with every value forgotten (write-only): header names stay. */
export function forgetValues(auth: AuthState): AuthState {
  return {
    ...auth,
    key: '',
    clientSecret: '',
    headers: auth.headers.map((row) => ({ ...row, value: '' })),
  };
}
