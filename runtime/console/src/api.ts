/**
 * The console's calls to `/console/api`: JSON both ways, the session's CSRF
 * token in a header on every change, and every refusal as an `ApiError`
 * with its reason code, its message (what to change) and the field it names.
 */

export const CSRF_HEADER = 'x-portcullis-csrf';
/** Dispatched on `window` when the gateway answers 401 to a signed-in call: the session ended (idle, its cap, or removed). */
export const SESSION_ENDED = 'portcullis:session-ended';

export class ApiError extends Error {
  readonly code: string;
  readonly field: string | undefined;
  readonly status: number;

  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

export interface Session {
  member: { name: string; role: 'owner' | 'operator' | 'viewer' | 'member' };
  workspace: { name: string };
  csrf: string;
}

let csrf = '';

export function useSessionToken(session: Session | undefined): void {
  csrf = session?.csrf ?? '';
}

export async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/console/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(method === 'POST' ? { 'content-type': 'application/json', [CSRF_HEADER]: csrf } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    if (response.status === 401 && path !== '/sign-in' && path !== '/session')
      window.dispatchEvent(new Event(SESSION_ENDED));
    const error = (json as { error?: { code?: string; message?: string; field?: string } })?.error;
    throw new ApiError(
      response.status,
      error?.code ?? 'internal',
      error?.message ?? `the gateway answered ${response.status}`,
      error?.field,
    );
  }
  return json as T;
}

/** A query string of the values that are set. */
export function queryOf(values: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== '') query.set(name, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}
