/**
 * What the authorization server's endpoints answer, framework-free: a
 * status, headers and a body, which the HTTP adapter copies out. Every
 * reply that may carry a code, a token or a form is `no-store`.
 */
import type { OAuthError } from './oauth-error.ts';

export interface OAuthReply {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** Adds a `Set-Cookie` to the reply, after any it sets already. */
export function appendCookie(reply: OAuthReply, cookie: string): void {
  const existing = reply.headers['Set-Cookie'];
  reply.headers['Set-Cookie'] =
    existing === undefined
      ? [cookie]
      : [...(Array.isArray(existing) ? existing : [existing]), cookie];
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

export function jsonReply(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): OAuthReply {
  return {
    status,
    headers: { 'Content-Type': 'application/json', ...NO_STORE, ...headers },
    body: JSON.stringify(body),
  };
}

/** A discovery document: public, cacheable for a while. */
export function documentReply(body: unknown): OAuthReply {
  return {
    status: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' },
    body: JSON.stringify(body),
  };
}

/** An error of the token, registration or revocation endpoint (RFC 6749 §5.2). */
export function oauthErrorReply(error: OAuthError): OAuthReply {
  const headers: Record<string, string> = {};
  if (error.error === 'temporarily_unavailable')
    headers['Retry-After'] = String(error.retryAfterSeconds ?? 60);
  // §5.2: a client that tried to authenticate in the Authorization header is told how it may.
  if (error.status === 401) headers['WWW-Authenticate'] = 'Basic realm="portcullis"';
  return jsonReply(error.status, error.toJSON(), headers);
}

/** A redirect to `url`; after a form post, 303 so the browser follows it with GET. */
export function redirectReply(url: string, status: 302 | 303 = 302): OAuthReply {
  return {
    status,
    headers: { Location: url, ...NO_STORE, 'Referrer-Policy': 'no-referrer' },
    body: '',
  };
}
