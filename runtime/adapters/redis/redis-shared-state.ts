/**
 * The `SharedState` of a gateway that runs as several replicas: every call is
 * one Redis command, or one Lua script where no single command does the job,
 * so Redis makes each atomic across replicas.
 *
 * | call | Redis |
 * | --- | --- |
 * | get | GET |
 * | set | SET [PX] |
 * | add | SET NX [PX] |
 * | compareAndSet | a script: GET, compare, then SET [PX] or DEL |
 * | take | GETDEL (Redis 6.2 or later) |
 * | delete | DEL |
 * | touch | PEXPIRE |
 * | increment | a script: INCR, then PEXPIRE when PTTL says there is no TTL |
 * | takeTokens | a script: TIME, HMGET each bucket, then HSET and PEXPIRE each (`token-bucket-script.ts`) |
 * | publish, subscribe | PUBLISH; SUBSCRIBE on a second connection (`RedisChannels`) |
 *
 * Every key and channel is sent with `keyPrefix` in front, so deployments
 * (and test runs) that share a server never meet; channels belong to no
 * database, so the prefix, not the URL's database number, keeps them apart.
 */
import { GatewayError } from '../../core/base/errors.ts';
import { warnOfListenerError } from '../../core/ports/shared-state/message-delivery.ts';
import type {
  ListenerErrorHandler,
  MessageListener,
  SharedState,
  Subscription,
} from '../../core/ports/shared-state/shared-state.ts';
import {
  checkCompareAndSet,
  checkRequiredTtl,
  checkText,
  checkTtl,
  stateClosed,
} from '../../core/ports/shared-state/state-arguments.ts';
import {
  type Bucket,
  type BucketsTake,
  checkBuckets,
} from '../../core/ports/shared-state/token-bucket.ts';
import { RedisChannels } from './redis-channels.ts';
import {
  connectRedis,
  disconnectRedis,
  type ScriptedRedis,
  unavailable,
} from './redis-connection.ts';
import { type RedisTarget, redisTarget } from './redis-target.ts';

export interface RedisSharedStateOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`. */
  url: string;
  /** Put in front of every key and channel; default `portcullis:`. */
  keyPrefix?: string;
  /** Where a listener's error goes; default a process warning. */
  onListenerError?: ListenerErrorHandler;
}

export class RedisSharedState implements SharedState {
  readonly #redis: ScriptedRedis;
  readonly #target: RedisTarget;
  readonly #prefix: string;
  readonly #channels: RedisChannels;
  #closed = false;

  /** Connects, and fails with `state_unavailable` when the server does not answer PING. */
  static async open(options: RedisSharedStateOptions): Promise<RedisSharedState> {
    const target = redisTarget(options.url);
    const prefix = options.keyPrefix ?? 'portcullis:';
    checkText('keyPrefix', prefix);
    return new RedisSharedState(await connectRedis(target), target, prefix, options);
  }

  private constructor(
    redis: ScriptedRedis,
    target: RedisTarget,
    prefix: string,
    options: RedisSharedStateOptions,
  ) {
    this.#redis = redis;
    this.#target = target;
    this.#prefix = prefix;
    this.#channels = new RedisChannels({
      connect: () => connectRedis(target),
      failure: (error) => this.#failure(error),
      onListenerError: options.onListenerError ?? warnOfListenerError,
    });
  }

  async get(key: string): Promise<string | undefined> {
    checkText('key', key);
    const value = await this.#run((redis) => redis.get(this.#key(key)));
    return value ?? undefined;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    checkText('key', key);
    checkText('value', value);
    checkTtl(ttlMs);
    await this.#run((redis) =>
      ttlMs === undefined
        ? redis.set(this.#key(key), value)
        : redis.set(this.#key(key), value, 'PX', ttlMs),
    );
  }

  async add(key: string, value: string, ttlMs?: number): Promise<boolean> {
    checkText('key', key);
    checkText('value', value);
    checkTtl(ttlMs);
    const reply = await this.#run((redis) =>
      ttlMs === undefined
        ? redis.set(this.#key(key), value, 'NX')
        : redis.set(this.#key(key), value, 'PX', ttlMs, 'NX'),
    );
    return reply === 'OK';
  }

  async compareAndSet(
    key: string,
    expected: string | undefined,
    next: string | undefined,
    ttlMs?: number,
  ): Promise<boolean> {
    checkCompareAndSet(key, expected, next, ttlMs);
    const changed = await this.#run((redis) =>
      redis.compareAndSetScript(
        this.#key(key),
        expected === undefined ? '0' : '1',
        expected ?? '',
        next === undefined ? '0' : '1',
        next ?? '',
        ttlMs === undefined ? '' : String(ttlMs),
      ),
    );
    return changed === 1;
  }

  async take(key: string): Promise<string | undefined> {
    checkText('key', key);
    const value = await this.#run((redis) => redis.getdel(this.#key(key)));
    return value ?? undefined;
  }

  async delete(key: string): Promise<boolean> {
    checkText('key', key);
    return (await this.#run((redis) => redis.del(this.#key(key)))) > 0;
  }

  async touch(key: string, ttlMs: number): Promise<boolean> {
    checkText('key', key);
    checkRequiredTtl(ttlMs);
    return (await this.#run((redis) => redis.pexpire(this.#key(key), ttlMs))) === 1;
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    checkText('key', key);
    checkRequiredTtl(ttlMs);
    return this.#run((redis) =>
      redis.countScript(this.#key(key), String(ttlMs)).catch((error: unknown) => {
        // INCR failing on a value that is not a count is the caller's misuse.
        if (error instanceof Error && /\bnot an integer\b/.test(error.message)) {
          throw new TypeError('increment found a value that is not a count');
        }
        throw error;
      }),
    );
  }

  async takeTokens(buckets: readonly Bucket[]): Promise<BucketsTake> {
    checkBuckets(buckets);
    for (const { key } of buckets) checkText('key', key);
    const keys = buckets.map(({ key }) => this.#key(key));
    const rules = buckets.flatMap(({ rule }) => [String(rule.perMinute), String(rule.burst)]);
    const [granted, ...figures] = await this.#run((redis) =>
      redis.takeTokensScript(keys.length, ...keys, ...rules).catch((error: unknown) => {
        if (error instanceof Error && /\bWRONGTYPE\b/.test(error.message)) {
          throw new TypeError('takeTokens found a value that is not a bucket');
        }
        throw error;
      }),
    );
    return granted === 1
      ? { granted: true, remaining: figures }
      : { granted: false, refusedBy: figures[0] as number, retryAfterMs: figures[1] as number };
  }

  async publish(channel: string, message: string): Promise<void> {
    checkText('channel', channel);
    checkText('message', message);
    await this.#run((redis) => redis.publish(this.#key(channel), message));
  }

  async subscribe(channel: string, listener: MessageListener): Promise<Subscription> {
    checkText('channel', channel);
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    if (this.#closed) throw stateClosed();
    return this.#channels.subscribe(this.#key(channel), listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.#channels.close(), disconnectRedis(this.#redis)]);
  }

  #key(name: string): string {
    return this.#prefix + name;
  }

  /** Runs one command on an open state; a Redis failure rejects with `state_unavailable`, misuse with its `TypeError`. */
  async #run<T>(command: (redis: ScriptedRedis) => Promise<T>): Promise<T> {
    if (this.#closed) throw stateClosed();
    try {
      return await command(this.#redis);
    } catch (error) {
      throw error instanceof TypeError ? error : this.#failure(error);
    }
  }

  #failure(error: unknown): GatewayError {
    if (error instanceof GatewayError) return error;
    return unavailable(this.#target, error);
  }
}
