/**
 * Redirect URIs: `https`, or `http` on a loopback address (RFC 8252 §7.3),
 * never with credentials or a fragment; matched exactly against the client's
 * own. A deployment may also keep an allowlist (`PORTCULLIS_OAUTH_REDIRECT_URIS`):
 * then every redirect URI must match one of its patterns, where `*` stands for
 * any characters but `/`, `?`, `#` and `@` (`https://chatgpt.com/connector/oauth/*`).
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why `uri` cannot be a redirect URI, in words naming what to change; undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not embed credentials';
  if (uri.includes('#')) return 'must not have a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}

export class RedirectAllowlist {
  readonly #patterns: readonly RegExp[];

  /** No patterns: every valid redirect URI is allowed (each client still only its own). */
  constructor(patterns: readonly string[]) {
    this.#patterns = patterns.map(
      (pattern) =>
        new RegExp(
          `^${pattern
            .split('*')
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/?#@]*')}$`,
        ),
    );
  }

  get restricted(): boolean {
    return this.#patterns.length > 0;
  }

  allows(uri: string): boolean {
    return !this.restricted || this.#patterns.some((pattern) => pattern.test(uri));
  }
}
