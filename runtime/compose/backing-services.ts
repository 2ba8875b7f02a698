/**
 * The start-up banner's lines naming each backing service the gateway uses:
 * the store (SQLite's folder, or PostgreSQL's host and database) and, when
 * `REDIS_URL` is set, Redis (host, port and database). Never a user name, a
 * password or a query string: those URLs may carry credentials.
 */

import { redisTarget } from '../adapters/redis/redis-target.ts';
import type { Config } from '../config/config.ts';

export function backingServicesText(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'redisUrl'>,
): string[] {
  const lines = [
    `store: ${config.databaseUrl ? `PostgreSQL at ${postgresAddress(config.databaseUrl)}` : `SQLite in ${config.dataDir}`}`,
  ];
  if (config.redisUrl) lines.push(`shared state: Redis at ${redisTarget(config.redisUrl).address}`);
  return lines;
}

/** `host:port/database` of a PostgreSQL URL (checked at start to have a host). */
function postgresAddress(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}
