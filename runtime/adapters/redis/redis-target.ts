/**
 * Where a Redis URL points, and the parts of it never to show. Apart from
 * the connection (no ioredis here), so the start-up banner can name Redis
 * without loading its client.
 */

/** Where a Redis URL points, and the parts of it that must never be shown. */
export interface RedisTarget {
  readonly url: string;
  /** `redis://host:port/db`, with no user or password: safe in a message. */
  readonly address: string;
  readonly secrets: readonly string[];
}

export function redisTarget(url: string): RedisTarget {
  // The URL may hold a password: never repeat it in a message.
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('the Redis URL is not a URL');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new TypeError('the Redis URL must start with redis:// or rediss://');
  }
  if (parsed.hostname === '') throw new TypeError('the Redis URL names no host');
  // ioredis also reads options from the query (`?password=…`).
  const passwords = [parsed.password, parsed.searchParams.get('password') ?? ''];
  const secrets = [...passwords, ...passwords.map(safeDecode)].filter((text) => text !== '');
  return {
    url,
    address: `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`,
    secrets,
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
