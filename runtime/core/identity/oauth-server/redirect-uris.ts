/**
 * Redirect URIs: `https`, or `http` on a loopback address (RFC 8252 §7.3),
 * never with credentials or a fragment; matched exactly against the client's
 * own, but for the port of a loopback IP literal. A deployment may also keep an allowlist (`PORTCULLIS_OAUTH_REDIRECT_URIS`):
 * then every redirect URI must match one of its patterns, where `*` stands for
 * any characters but `/`, `?`, `#`, `@`, `\` and `%`
 * (`https://chatgpt.com/connector/oauth/*`), and must be written as the URL
 * parser writes it back: a browser reads `https://evil.example\.chatgpt.com/`
 * as a path on evil.example, so no spelling a browser rewrites can pass.
 */
/** The loopback hosts plain http is allowed on (redirect URIs, development metadata documents). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

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

/** Loopback IP literals, where a native client listens on whatever port it got (RFC 8252 §7.3). */
const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);

/**
 * Whether the redirect URI a request names is one the client registered:
 * exactly, or, for http on a loopback IP literal, the same URI on any port
 * (RFC 8252 §7.3), written as the URL parser writes it back.
 */
export function redirectUriMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  let mine: URL;
  let theirs: URL;
  try {
    mine = new URL(registered);
    theirs = new URL(presented);
  } catch {
    return false;
  }
  if (theirs.href !== presented || mine.protocol !== 'http:' || !LOOPBACK_IPS.has(mine.hostname)) {
    return false;
  }
  mine.port = '';
  theirs.port = '';
  return mine.href === theirs.href;
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
            .join('[^/?#@\\\\%]*')}$`,
        ),
    );
  }

  get restricted(): boolean {
    return this.#patterns.length > 0;
  }

  allows(uri: string): boolean {
    if (!this.restricted) return true;
    return isCanonical(uri) && this.#patterns.some((pattern) => pattern.test(uri));
  }
}

function isCanonical(uri: string): boolean {
  try {
    return new URL(uri).href === uri;
  } catch {
    return false;
  }
}
