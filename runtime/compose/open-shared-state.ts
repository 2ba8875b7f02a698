/**
 * Opens the gateway's shared ephemeral state: in-process without a Redis URL,
 * Redis with one (`REDIS_URL`). A Redis that does not answer PING fails here,
 * at start, with `state_unavailable` and a message that names `REDIS_URL` and
 * the server, never the password. The Redis client is loaded only when it
 * is configured (a start without it spends nothing on loading it).
 */

import { GatewayError } from '../core/base/errors.ts';
import { MemorySharedState } from '../core/ports/shared-state/memory-shared-state.ts';
import type { ListenerErrorHandler, SharedState } from '../core/ports/shared-state/shared-state.ts';

export interface OpenSharedStateOptions {
  /** `REDIS_URL`: `redis://…` or `rediss://…`; absent or empty selects the in-process state. */
  redisUrl?: string;
  /** Put in front of every Redis key and channel; default `portcullis:`. */
  keyPrefix?: string;
  /** Where a subscription listener's error goes; default a process warning. */
  onListenerError?: ListenerErrorHandler;
}

export async function openSharedState(options: OpenSharedStateOptions = {}): Promise<SharedState> {
  const { redisUrl, keyPrefix, onListenerError } = options;
  const common = onListenerError === undefined ? {} : { onListenerError };
  if (redisUrl === undefined || redisUrl === '') return new MemorySharedState(common);
  try {
    const { RedisSharedState } = await import('../adapters/redis/redis-shared-state.ts');
    return await RedisSharedState.open({
      url: redisUrl,
      ...common,
      ...(keyPrefix === undefined ? {} : { keyPrefix }),
    });
  } catch (error) {
    if (error instanceof TypeError) throw new TypeError(`REDIS_URL: ${error.message}`);
    if (error instanceof GatewayError) {
      throw new GatewayError('state_unavailable', `REDIS_URL: ${error.message}`, {
        ...(error.detail === undefined ? {} : { detail: error.detail }),
        cause: error.cause,
      });
    }
    throw error;
  }
}
