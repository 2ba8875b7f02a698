/**
 * The in-process `SharedState`: the default, for a gateway that runs as one
 * process. Every call runs to its end without yielding, which is what makes
 * each one atomic. A key past its TTL is invisible at once and is removed
 * when it is next read or, at the latest, by a sweep on an unref'd timer, so
 * keys that are never read again cost memory only until the next sweep.
 * Messages are delivered on a microtask, never inside `publish`.
 */
import { deliverMessage, warnOfListenerError } from './message-delivery.ts';
import type {
  ListenerErrorHandler,
  MessageListener,
  SharedState,
  Subscription,
} from './shared-state.ts';
import {
  checkCompareAndSet,
  checkRequiredTtl,
  checkText,
  checkTtl,
  countOf,
  stateClosed,
} from './state-arguments.ts';
import {
  type Bucket,
  type BucketLevel,
  type BucketsTake,
  checkBuckets,
  takeFromBuckets,
} from './token-bucket.ts';

export interface MemorySharedStateOptions {
  /** The clock in ms since the epoch (tests move it by hand); default `Date.now`. */
  now?: () => number;
  /** How often expired keys are swept; default 10 s. */
  sweepIntervalMs?: number;
  /** Where a listener's error goes; default a process warning. */
  onListenerError?: ListenerErrorHandler;
}

interface Entry {
  value: string;
  /** When the key expires, on the `now` clock; `undefined`: never. */
  expiresAt: number | undefined;
}

/** One `subscribe` call: inactive once unsubscribed, so a message already queued for it is dropped. */
interface Listening {
  readonly listener: MessageListener;
  active: boolean;
}

export class MemorySharedState implements SharedState {
  readonly #entries = new Map<string, Entry>();
  readonly #channels = new Map<string, Set<Listening>>();
  readonly #now: () => number;
  readonly #onListenerError: ListenerErrorHandler;
  readonly #sweeper: ReturnType<typeof setInterval>;
  #closed = false;

  constructor(options: MemorySharedStateOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#onListenerError = options.onListenerError ?? warnOfListenerError;
    const interval = options.sweepIntervalMs ?? 10_000;
    checkTtl(interval);
    this.#sweeper = setInterval(() => this.#sweep(), interval);
    this.#sweeper.unref();
  }

  /** How many keys are held, expired ones not yet swept included (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    checkText('key', key);
    return this.#live(key)?.value;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    checkText('key', key);
    checkText('value', value);
    checkTtl(ttlMs);
    this.#write(key, value, ttlMs);
  }

  async add(key: string, value: string, ttlMs?: number): Promise<boolean> {
    checkText('key', key);
    checkText('value', value);
    checkTtl(ttlMs);
    if (this.#live(key) !== undefined) return false;
    this.#write(key, value, ttlMs);
    return true;
  }

  async compareAndSet(
    key: string,
    expected: string | undefined,
    next: string | undefined,
    ttlMs?: number,
  ): Promise<boolean> {
    checkCompareAndSet(key, expected, next, ttlMs);
    if (this.#live(key)?.value !== expected) return false;
    if (next === undefined) this.#entries.delete(key);
    else this.#write(key, next, ttlMs);
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    checkText('key', key);
    const entry = this.#live(key);
    this.#entries.delete(key);
    return entry?.value;
  }

  async delete(key: string): Promise<boolean> {
    checkText('key', key);
    const existed = this.#live(key) !== undefined;
    this.#entries.delete(key);
    return existed;
  }

  async touch(key: string, ttlMs: number): Promise<boolean> {
    checkText('key', key);
    checkRequiredTtl(ttlMs);
    const entry = this.#live(key);
    if (entry === undefined) return false;
    entry.expiresAt = this.#now() + ttlMs;
    return true;
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    checkText('key', key);
    checkRequiredTtl(ttlMs);
    const entry = this.#live(key);
    const count = (entry === undefined ? 0 : countOf(entry.value)) + 1;
    const expiresAt = entry?.expiresAt ?? this.#now() + ttlMs;
    this.#entries.set(key, { value: String(count), expiresAt });
    return count;
  }

  async takeTokens(buckets: readonly Bucket[]): Promise<BucketsTake> {
    checkBuckets(buckets);
    for (const { key } of buckets) checkText('key', key);
    const levels = buckets.map(({ key }) => {
      const entry = this.#live(key);
      return entry === undefined ? undefined : levelOf(entry.value);
    });
    const now = this.#now();
    const { take, steps } = takeFromBuckets(
      levels,
      buckets.map((bucket) => bucket.rule),
      now,
    );
    if (take.granted)
      steps.forEach((step, i) => {
        if (step.next !== undefined)
          this.#write(buckets[i]!.key, `${step.next.tokens} ${step.next.at}`, step.ttlMs);
      });
    return take;
  }

  async publish(channel: string, message: string): Promise<void> {
    checkText('channel', channel);
    checkText('message', message);
    this.#open();
    const listenings = this.#channels.get(channel);
    if (listenings === undefined) return;
    // The subscriptions active now; one that ends before the microtask runs is skipped.
    const receivers = [...listenings];
    queueMicrotask(() => {
      for (const listening of receivers) {
        if (listening.active) deliverMessage(listening.listener, message, this.#onListenerError);
      }
    });
  }

  async subscribe(channel: string, listener: MessageListener): Promise<Subscription> {
    checkText('channel', channel);
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    this.#open();
    const listening: Listening = { listener, active: true };
    let listenings = this.#channels.get(channel);
    if (listenings === undefined) {
      listenings = new Set();
      this.#channels.set(channel, listenings);
    }
    listenings.add(listening);
    return {
      unsubscribe: async () => {
        listening.active = false;
        const current = this.#channels.get(channel);
        current?.delete(listening);
        if (current?.size === 0) this.#channels.delete(channel);
      },
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#entries.clear();
    for (const listenings of this.#channels.values()) {
      for (const listening of listenings) listening.active = false;
    }
    this.#channels.clear();
  }

  /** The key's entry if it has not expired; an expired one is removed. */
  #live(key: string): Entry | undefined {
    this.#open();
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #write(key: string, value: string, ttlMs: number | undefined): void {
    this.#open();
    this.#entries.set(key, {
      value,
      expiresAt: ttlMs === undefined ? undefined : this.#now() + ttlMs,
    });
  }

  #open(): void {
    if (this.#closed) throw stateClosed();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) this.#entries.delete(key);
    }
  }
}

/** A bucket's level as this state keeps it (`<tokens> <at>`); a value that is not one is a `TypeError`. */
function levelOf(text: string): BucketLevel {
  const [tokens, at] = text.split(' ').map(Number);
  if (!Number.isFinite(tokens) || !Number.isFinite(at))
    throw new TypeError('takeTokens found a value that is not a bucket');
  return { tokens: tokens as number, at: at as number };
}
