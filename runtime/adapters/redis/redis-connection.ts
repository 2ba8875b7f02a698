/**
 * One connection to Redis for the shared state, and the one way its failures
 * become errors: a `GatewayError` with code `state_unavailable` whose message
 * names the server without its credentials. An ioredis error is never kept as
 * the cause: its `command.args` can hold the password (`HELLO 3 AUTH user
 * password`), so only its redacted message and its code are.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { GatewayError } from '../../core/base/errors.ts';
import type { RedisTarget } from './redis-target.ts';
import { TAKE_TOKENS } from './token-bucket-script.ts';

/** The Lua scripts a connection knows by name (run with EVALSHA, loaded on first use). */
export type ScriptedRedis = Redis & {
  /** KEYS[1]; ARGV: has expected ('1'|'0'), expected, has next, next, ttl ms ('' for none). */
  compareAndSetScript(
    key: string,
    hasExpected: string,
    expected: string,
    hasNext: string,
    next: string,
    ttlMs: string,
  ): Promise<number>;
  /** KEYS[1]; ARGV: ttl ms. */
  countScript(key: string, ttlMs: string): Promise<number>;
  /** The number of keys, the keys, then per minute and burst of each (`token-bucket-script.ts`). */
  takeTokensScript(count: number, ...keysThenRules: string[]): Promise<number[]>;
};

const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[3] == '0' then
  redis.call('DEL', KEYS[1])
elseif ARGV[5] == '' then
  redis.call('SET', KEYS[1], ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
end
return 1
`;

const COUNT = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

const OPTIONS: RedisOptions = {
  lazyConnect: true,
  // While the connection is down a call fails at once rather than queueing:
  // a request waits on the gateway, not on a Redis that may not come back.
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 5_000,
  commandTimeout: 5_000,
  // Which process holds a connection shows in `CLIENT LIST`: one name per replica.
  connectionName: `portcullis-state:${process.pid}`,
  scripts: {
    compareAndSetScript: { lua: COMPARE_AND_SET, numberOfKeys: 1 },
    countScript: { lua: COUNT, numberOfKeys: 1 },
    // No fixed number of keys: each call says how many buckets it takes from.
    takeTokensScript: { lua: TAKE_TOKENS },
  },
};

/**
 * Connects and checks the server answers PING. Later drops reconnect on
 * their own (ioredis' backoff); calls made meanwhile fail with
 * `state_unavailable`.
 */
export async function connectRedis(target: RedisTarget): Promise<ScriptedRedis> {
  let redis: ScriptedRedis;
  try {
    redis = new Redis(target.url, OPTIONS) as ScriptedRedis;
  } catch {
    // ioredis' own URL error carries the URL (`input`): keep none of it.
    throw new TypeError('the Redis URL is not one ioredis can use');
  }
  // connect() rejects with only "Connection is closed."; the reason comes as an event.
  let lastError: unknown;
  redis.on('error', (error: unknown) => {
    lastError = error;
  });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    throw unavailable(target, lastError ?? error, 'does not answer');
  }
}

/** Ends a connection: QUIT when it is up, a plain disconnect otherwise. */
export async function disconnectRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** A Redis failure as the `state_unavailable` error callers see. */
export function unavailable(target: RedisTarget, error: unknown, what = 'failed'): GatewayError {
  const reason = redact(target, error instanceof Error ? error.message : String(error));
  const code = (error as { code?: unknown } | undefined)?.code;
  const cause = new Error(reason);
  cause.name = error instanceof Error ? error.name : 'Error';
  return new GatewayError(
    'state_unavailable',
    `the Redis at ${target.address} ${what}: ${reason}`,
    {
      detail: { address: target.address, ...(typeof code === 'string' ? { code } : {}) },
      cause,
    },
  );
}

function redact(target: RedisTarget, text: string): string {
  let redacted = text;
  for (const secret of target.secrets) redacted = redacted.split(secret).join('***');
  return redacted;
}
