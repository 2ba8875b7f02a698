/**
 * Shared ephemeral state: what the gateway's replicas share that need not
 * outlive a restart (sessions of the stateful MCP wire, pending
 * multi-round-trip input and the routing of replies to it, list-changed
 * fan-out, OAuth codes and approved consent requests, rate-limit counters, short
 * locks). Durable rows belong in the store, not here.
 *
 * In-process by default (`MemorySharedState`); Redis when the gateway runs as
 * several replicas. Both keep the one contract below, and the contract suite
 * in `test/runtime/core/ports/shared-state/` holds them to it.
 *
 * - Keys, values, channels and messages are strings: callers serialise. Each
 *   must be well-formed UTF-16 (no lone surrogate), or the call throws a
 *   `TypeError`, so no implementation can merge two keys that differ only in
 *   bytes it cannot store.
 * - A key may itself be a secret (a session id, an authorization code):
 *   implementations never put a key, a value or a message in an error.
 * - A TTL is a whole number of milliseconds above 0 (otherwise a
 *   `TypeError`). A key past its TTL is gone at once: no read sees it, and
 *   `add` or `compareAndSet(key, undefined, …)` find it absent. Every write that
 *   stores a value sets the key's TTL to the one given, or to none when none
 *   is given (the key then lives until it is deleted); only `touch` and
 *   `increment` say otherwise.
 * - Every call is atomic: concurrent calls from any replica behave as if they
 *   ran one after another.
 * - When the state cannot be reached (Redis down, or after `close()`), a call
 *   rejects with a `GatewayError` whose code is `state_unavailable`. A write
 *   that rejects so may or may not have happened.
 */
import type { Bucket, BucketsTake } from './token-bucket.ts';

export interface SharedState {
  /** The value at `key`, or `undefined` when there is none. Cheap: the wire calls it on every request of a session. */
  get(key: string): Promise<string | undefined>;

  /** Stores `value` at `key`, replacing any value, with `ttlMs` or no TTL. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;

  /**
   * Stores `value` at `key` only if there is no value there: true when it
   * did. Of concurrent `add`s of one key, exactly one wins (a lock, a
   * once-only claim).
   */
  add(key: string, value: string, ttlMs?: number): Promise<boolean>;

  /**
   * When the value at `key` is `expected` (`undefined`: there is none), makes
   * it `next` (`undefined`: deletes it) with `ttlMs` or no TTL, and answers
   * true; otherwise changes nothing and answers false. Of concurrent calls
   * that expect the same value, at most one succeeds. A TTL with no `next` is
   * a `TypeError`: there would be nothing to expire.
   */
  compareAndSet(
    key: string,
    expected: string | undefined,
    next: string | undefined,
    ttlMs?: number,
  ): Promise<boolean>;

  /**
   * Reads and deletes the value at `key` in one step: of concurrent `take`s
   * of one key, exactly one gets the value (single-use codes and consents).
   */
  take(key: string): Promise<string | undefined>;

  /** Deletes `key`: true when there was a value. */
  delete(key: string): Promise<boolean>;

  /** Sets the TTL of an existing key to `ttlMs` from now (a session kept alive): false when there is no value. */
  touch(key: string, ttlMs: number): Promise<boolean>;

  /**
   * Adds 1 to the counter at `key` (0 when there is none) and answers the new
   * count. A counter with no TTL, as when this call creates it, gets `ttlMs`;
   * a running TTL is never extended, so the counter counts one fixed window
   * and starts over after it. A value that is not a whole number is a
   * `TypeError`.
   */
  increment(key: string, ttlMs: number): Promise<number>;

  /**
   * Takes one token from each token bucket named (`token-bucket.ts`), or
   * from none when any holds less than a whole token: then refused, with the
   * first bucket that did and how long until all will. A bucket never taken
   * from is full. Of concurrent takes from any replica, only as many are
   * granted as the buckets hold. The clock is the state's own (Redis': its
   * server's), so replicas whose clocks differ still share one bucket. No
   * bucket, or a rule of other than whole numbers above 0, is a `TypeError`.
   */
  takeTokens(buckets: readonly Bucket[]): Promise<BucketsTake>;

  /**
   * Sends `message` on `channel`, fire-and-forget: each subscription on any
   * replica that is active when the message reaches it receives it once, in
   * the order one replica published; a subscription made later, or
   * disconnected at the time, never does (no queue, no replay). Listeners
   * never run inside `publish`: the message is delivered asynchronously,
   * also to subscriptions in this process.
   */
  publish(channel: string, message: string): Promise<void>;

  /**
   * Calls `listener` with each message published on `channel` from when the
   * returned promise resolves until the subscription is ended. A listener
   * that throws does not keep the message from the others; its error goes to
   * the implementation's `onListenerError`.
   */
  subscribe(channel: string, listener: MessageListener): Promise<Subscription>;

  /** Ends every subscription and releases connections and timers; later calls reject. Closing twice is harmless. */
  close(): Promise<void>;
}

export type MessageListener = (message: string) => void;

export interface Subscription {
  /** Stops deliveries to this subscription's listener; once it resolves, no message reaches it. Idempotent. */
  unsubscribe(): Promise<void>;
}

/** Where a listener's error goes, for every implementation. */
export type ListenerErrorHandler = (error: unknown) => void;
