/**
 * CORS for browser-based MCP clients (Inspector, web apps) on `/mcp`, the
 * discovery documents and the token, registration, revocation and JWKS
 * endpoints. A preflight is answered here, before any credential check (it
 * never carries one). Allowed origins come from `PORTCULLIS_CORS_ORIGINS`;
 * `*` opens the credential-free endpoints to any origin, while `/mcp` still
 * needs an origin listed by name (it also passes the DNS-rebinding check).
 * The consent page is never a CORS resource: it is a page a person visits.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { MCP_PATH } from '../../core/identity/oauth-server/metadata.ts';

const OPEN_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/oauth/token',
  '/oauth/register',
  '/oauth/revoke',
  '/oauth/jwks',
];
const ALLOW_HEADERS = /^[A-Za-z0-9-]+$/;
const EXPOSE = 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After, Content-Type';

export class CorsPolicy {
  readonly #any: boolean;
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#any = origins.includes('*');
    this.#origins = new Set(origins.filter((origin) => origin !== '*'));
  }

  /** The origins `/mcp`'s Origin check must also allow. */
  get namedOrigins(): string[] {
    return [...this.#origins];
  }

  /** The value of `Access-Control-Allow-Origin` for this origin on this path, if it is allowed. */
  allowedOrigin(path: string, origin: string | undefined): string | undefined {
    if (origin === undefined || !this.varies(path)) return undefined;
    if (this.#origins.has(origin)) return origin;
    return path !== MCP_PATH && this.#any ? '*' : undefined;
  }

  /**
   * Whether a reply on this path depends on the request's Origin: then it
   * says so (`Vary: Origin`) to every request, with an Origin or without,
   * so a shared cache never hands a browser a copy made for another origin.
   */
  varies(path: string): boolean {
    if (!this.#any && this.#origins.size === 0) return false;
    return (
      path === MCP_PATH || OPEN_PATHS.some((open) => path === open || path.startsWith(`${open}/`))
    );
  }
}

/** Answers preflights and marks replies for allowed origins; everything else goes on to `next`. */
export function withCors(policy: CorsPolicy, next: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const origin = req.headers.origin;
    const allowed = policy.allowedOrigin(path, origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader(
        'Vary',
        'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      );
      if (allowed !== undefined) {
        res.setHeader('Access-Control-Allow-Origin', allowed);
        res.setHeader(
          'Access-Control-Allow-Methods',
          path === MCP_PATH ? 'GET, POST, DELETE' : 'GET, POST',
        );
        const asked = String(req.headers['access-control-request-headers'] ?? '')
          .split(',')
          .map((header) => header.trim())
          .filter((header) => ALLOW_HEADERS.test(header));
        if (asked.length > 0) res.setHeader('Access-Control-Allow-Headers', asked.join(', '));
        res.setHeader('Access-Control-Max-Age', '600');
      }
      res.writeHead(204, { 'Content-Length': '0' });
      res.end();
      req.resume();
      return;
    }
    if (policy.varies(path)) res.setHeader('Vary', 'Origin');
    if (allowed !== undefined) {
      res.setHeader('Access-Control-Allow-Origin', allowed);
      res.setHeader('Access-Control-Expose-Headers', EXPOSE);
    }
    next(req, res);
  };
}
