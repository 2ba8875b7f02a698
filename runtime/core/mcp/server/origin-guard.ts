/**
 * DNS-rebinding protection: the Host header must name an allowed host and an
 * Origin header, when present, an allowed origin. A list entry without a port
 * allows that host (or origin) on any port; with a port, only that port.
 */
import { BoundedCache } from '../../base/bounded-cache.ts';

export interface OriginGuardOptions {
  /** Default: `localhost`, `127.0.0.1`, `[::1]`, any port. */
  allowedHosts?: readonly string[];
  /** Default: `http(s)://localhost`, `http(s)://127.0.0.1`, `http(s)://[::1]`, any port. */
  allowedOrigins?: readonly string[];
}

export type OriginGuardVerdict = 'ok' | 'host_refused' | 'origin_refused';

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
export const LOOPBACK_ORIGINS = LOOPBACK_HOSTS.flatMap((host) => [
  `http://${host}`,
  `https://${host}`,
]);

interface Authority {
  host: string;
  port: string | undefined;
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`, lowercased; undefined when malformed. */
function parseAuthority(text: string): Authority | undefined {
  let host: string;
  let rest: string;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) return undefined;
    host = text.slice(0, end + 1);
    rest = text.slice(end + 1);
  } else {
    const colon = text.indexOf(':');
    host = colon < 0 ? text : text.slice(0, colon);
    rest = colon < 0 ? '' : text.slice(colon);
  }
  if (host === '' || host === '[]' || /[\s/?#@\\]/.test(host)) return undefined;
  if (rest === '') return { host: host.toLowerCase(), port: undefined };
  const port = rest.slice(1);
  if (rest[0] !== ':' || !/^\d{1,5}$/.test(port) || Number(port) > 65_535) return undefined;
  return { host: host.toLowerCase(), port };
}

/** `scheme://authority` (an origin has no path); undefined when malformed. */
function parseOrigin(text: string): { scheme: string; authority: Authority } | undefined {
  const separator = text.indexOf('://');
  if (separator <= 0) return undefined;
  const scheme = text.slice(0, separator).toLowerCase();
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) return undefined;
  const authority = parseAuthority(text.slice(separator + 3));
  return authority === undefined ? undefined : { scheme, authority };
}

/** Splits a list into entries allowed on any port and entries allowed on one port. */
function allowList(
  entries: readonly string[],
  parse: (entry: string) => { key: string; port: string | undefined } | undefined,
  what: string,
): { anyPort: Set<string>; exact: Set<string> } {
  const anyPort = new Set<string>();
  const exact = new Set<string>();
  for (const entry of entries) {
    const parsed = parse(entry);
    if (parsed === undefined) throw new TypeError(`${what} entry is malformed: ${entry}`);
    if (parsed.port === undefined) anyPort.add(parsed.key);
    else exact.add(`${parsed.key}:${parsed.port}`);
  }
  return { anyPort, exact };
}

function allows(list: { anyPort: Set<string>; exact: Set<string> }, key: string, port?: string) {
  return list.anyPort.has(key) || (port !== undefined && list.exact.has(`${key}:${port}`));
}

/**
 * Returns a check for the Host and Origin header values. A repeated header
 * should be passed as `''` (refused), never as one of its values.
 */
export function createOriginGuard(
  options: OriginGuardOptions = {},
): (host: string | undefined, origin: string | undefined) => OriginGuardVerdict {
  const hosts = allowList(
    options.allowedHosts ?? LOOPBACK_HOSTS,
    (entry) => {
      const authority = parseAuthority(entry);
      return authority && { key: authority.host, port: authority.port };
    },
    'allowedHosts',
  );
  const origins = allowList(
    options.allowedOrigins ?? LOOPBACK_ORIGINS,
    (entry) => {
      const origin = parseOrigin(entry);
      return (
        origin && {
          key: `${origin.scheme}://${origin.authority.host}`,
          port: origin.authority.port,
        }
      );
    },
    'allowedOrigins',
  );

  // Clients send the same few Host and Origin values on every request: the verdicts are kept.
  const verdicts = new BoundedCache<OriginGuardVerdict>(1_000);
  const judge = (host: string | undefined, origin: string | undefined): OriginGuardVerdict => {
    const authority = host === undefined ? undefined : parseAuthority(host);
    if (authority === undefined || !allows(hosts, authority.host, authority.port)) {
      return 'host_refused';
    }
    if (origin !== undefined) {
      const parsed = parseOrigin(origin);
      const key = parsed && `${parsed.scheme}://${parsed.authority.host}`;
      if (key === undefined || !allows(origins, key, parsed?.authority.port)) {
        return 'origin_refused';
      }
    }
    return 'ok';
  };
  return (host, origin) => {
    // Length-prefixed, so no two pairs share a key; an absent header is not an empty one.
    const key = `${host === undefined ? -1 : host.length}:${host ?? ''}${origin === undefined ? '' : `:${origin}`}`;
    return verdicts.get(key, () => judge(host, origin));
  };
}
