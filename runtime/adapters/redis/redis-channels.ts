/**
 * Publish/subscribe for the Redis shared state: one subscriber connection,
 * opened on the first `subscribe`, holding one Redis subscription per channel
 * however many listeners it has in this process, and fanning each message out
 * to them. SUBSCRIBE and UNSUBSCRIBE go out one at a time, each bringing the
 * server in line with the listeners present when it runs: whatever the
 * interleaving of subscribes, unsubscribes and the first connection, the
 * server ends subscribed exactly to the channels that have listeners, and
 * no connection is opened after `close`.
 *
 * Delivery is Redis' own: at most once, to connections subscribed when the
 * message reaches the server. Messages published while the subscriber
 * connection is down are lost; ioredis subscribes again when it is back.
 */
import type { Redis } from 'ioredis';
import { deliverMessage } from '../../core/ports/shared-state/message-delivery.ts';
import type {
  ListenerErrorHandler,
  MessageListener,
  Subscription,
} from '../../core/ports/shared-state/shared-state.ts';
import { disconnectRedis } from './redis-connection.ts';

/** One `subscribe` call: inactive once unsubscribed, so a message still arriving for it is dropped. */
interface Listening {
  readonly listener: MessageListener;
  active: boolean;
}

export interface RedisChannelsOptions {
  /** Opens the subscriber connection. */
  connect(): Promise<Redis>;
  /** Turns a Redis failure into the error the caller sees. */
  failure(error: unknown): Error;
  onListenerError: ListenerErrorHandler;
}

export class RedisChannels {
  readonly #options: RedisChannelsOptions;
  /** Listeners by channel name as sent to Redis (prefixed). */
  readonly #listenings = new Map<string, Set<Listening>>();
  /** The channels the subscriber connection is subscribed to. */
  readonly #subscribed = new Set<string>();
  #subscriber: Promise<Redis> | undefined;
  /** The SUBSCRIBE and UNSUBSCRIBE steps, one after another. */
  #steps: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: RedisChannelsOptions) {
    this.#options = options;
  }

  async subscribe(channel: string, listener: MessageListener): Promise<Subscription> {
    const listening: Listening = { listener, active: true };
    let listenings = this.#listenings.get(channel);
    if (listenings === undefined) {
      listenings = new Set();
      this.#listenings.set(channel, listenings);
    }
    listenings.add(listening);
    const unsubscribe = async (): Promise<void> => {
      if (!listening.active) return;
      listening.active = false;
      const current = this.#listenings.get(channel);
      current?.delete(listening);
      if (current?.size === 0) this.#listenings.delete(channel);
      // Nothing reaches the listener any more; a Redis subscription left
      // behind by a failure is dropped by the channel's next step.
      await this.#align(channel).catch(() => {});
    };
    try {
      await this.#align(channel);
    } catch (error) {
      await unsubscribe();
      throw this.#options.failure(error);
    }
    return { unsubscribe };
  }

  /** Ends every subscription and the subscriber connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const listenings of this.#listenings.values()) {
      for (const listening of listenings) listening.active = false;
    }
    this.#listenings.clear();
    await this.#steps;
    const subscriber = await this.#subscriber?.catch(() => undefined);
    this.#subscriber = undefined;
    if (subscriber !== undefined) await disconnectRedis(subscriber);
  }

  /** Queues a step that subscribes `channel` if it has listeners and unsubscribes it if not. */
  #align(channel: string): Promise<void> {
    const step = this.#steps.then(async () => {
      if (this.#closed) return;
      const wanted = this.#listenings.has(channel);
      if (wanted === this.#subscribed.has(channel)) return;
      const subscriber = await this.#connection();
      if (wanted) {
        await subscriber.subscribe(channel);
        this.#subscribed.add(channel);
      } else {
        this.#subscribed.delete(channel);
        await subscriber.unsubscribe(channel);
      }
    });
    this.#steps = step.catch(() => {});
    return step;
  }

  #connection(): Promise<Redis> {
    if (this.#subscriber === undefined) {
      const connecting = this.#options.connect().then((redis) => {
        redis.on('message', (channel: string, message: string) => this.#deliver(channel, message));
        return redis;
      });
      this.#subscriber = connecting;
      // A failed connection is tried again by the next subscribe.
      connecting.catch(() => {
        if (this.#subscriber === connecting) this.#subscriber = undefined;
      });
    }
    return this.#subscriber;
  }

  #deliver(channel: string, message: string): void {
    const listenings = this.#listenings.get(channel);
    if (listenings === undefined) return;
    for (const listening of [...listenings]) {
      if (listening.active) {
        deliverMessage(listening.listener, message, this.#options.onListenerError);
      }
    }
  }
}
