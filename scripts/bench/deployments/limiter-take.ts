/**
 * The rate limiter's own work, timed in this process: one `takeTokens` of
 * two buckets (an agent's and a connection's, what a governed call takes with
 * both limits on), in-process and on Redis (one EVALSHA for both), its CPU
 * per take; on Redis with one take in flight and with `inFlight` at once, as
 * a gateway under load has them (the event loop's wake-ups are shared).
 */
import { RedisSharedState } from '../../../runtime/adapters/redis/redis-shared-state.ts';
import { MemorySharedState } from '../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import type { SharedState } from '../../../runtime/core/ports/shared-state/shared-state.ts';
import { median } from '../bench-table.ts';

export interface TakeCosts {
  /** CPU µs per take, in-process. */
  memory: number;
  /** CPU µs per take on Redis, one in flight. */
  redisAlone: number;
  /** CPU µs per take on Redis, `inFlight` at once. */
  redisLoaded: number;
  inFlight: number;
}

/** CPU µs per take of `state`, `inFlight` loops of `perLoop` takes; the median of 9 rounds after one thrown away. */
async function takeMicros(state: SharedState, perLoop: number, inFlight: number): Promise<number> {
  const rule = { perMinute: 1_000_000, burst: 1_000_000 };
  const buckets = [
    { key: `rate:agent:bench-${process.pid}`, rule },
    { key: `rate:connection:bench-${process.pid}`, rule },
  ];
  const loop = async () => {
    for (let i = 0; i < perLoop; i++) await state.takeTokens(buckets);
  };
  const once = () => Promise.all(Array.from({ length: inFlight }, loop));
  await once();
  const times: number[] = [];
  for (let round = 0; round < 9; round++) {
    const started = process.cpuUsage();
    await once();
    const spent = process.cpuUsage(started);
    times.push((spent.user + spent.system) / (perLoop * inFlight));
  }
  return median(times)!;
}

export async function measureTakes(redisUrl: string, inFlight: number): Promise<TakeCosts> {
  const memory = await takeMicros(new MemorySharedState(), 20_000, 1);
  const redis = await RedisSharedState.open({
    url: redisUrl,
    keyPrefix: `portcullis-bench:${process.pid}:`,
  });
  try {
    const redisAlone = await takeMicros(redis, 2_000, 1);
    const redisLoaded = await takeMicros(redis, Math.ceil(2_000 / inFlight), inFlight);
    return { memory, redisAlone, redisLoaded, inFlight };
  } finally {
    await redis.close();
  }
}
