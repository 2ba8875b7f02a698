/**
 * The contract every `SharedState` implementation keeps. Each
 * implementation's test file calls `describeSharedStateContract` with a
 * harness; every test gets a state of its own, and every state a test opens
 * is closed after it.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import type {
  ListenerErrorHandler,
  SharedState,
} from '../../../../../runtime/core/ports/shared-state/shared-state.ts';
import { describeBucketContract } from './contract/bucket-contract.ts';
import { describeChannelsContract } from './contract/channels-contract.ts';
import { describeConcurrencyContract } from './contract/concurrency-contract.ts';
import { describeExpiryContract } from './contract/expiry-contract.ts';
import { describeLockContract } from './contract/lock-contract.ts';
import { describeValuesContract } from './contract/values-contract.ts';

export interface SharedStateOpenOptions {
  onListenerError?: ListenerErrorHandler;
}

export interface SharedStateHarness {
  /** Opens a state of its own: no other state the harness opened sees its keys or its messages. */
  open(options?: SharedStateOpenOptions): Promise<SharedState>;
  /** Lets `ms` pass for every state the harness opened (a clock moved by hand, or a real wait). */
  elapse(ms: number): Promise<void>;
}

/** The state a contract test runs against, fresh for each test. */
export interface SharedStateSubject {
  readonly state: SharedState;
  /** Opens another state of its own, closed after the test. */
  open(options?: SharedStateOpenOptions): Promise<SharedState>;
  elapse(ms: number): Promise<void>;
}

export function describeSharedStateContract(name: string, harness: SharedStateHarness): void {
  describe(`${name} shared state`, () => {
    let current: SharedState | undefined;
    const opened = new Set<SharedState>();

    const subject: SharedStateSubject = {
      get state() {
        if (current === undefined) throw new Error('no state: used outside a test');
        return current;
      },
      async open(options) {
        const state = await harness.open(options);
        opened.add(state);
        return state;
      },
      elapse: (ms) => harness.elapse(ms),
    };

    beforeEach(async () => {
      current = await subject.open();
    });

    afterEach(async () => {
      const states = [...opened];
      opened.clear();
      current = undefined;
      await Promise.all(states.map((state) => state.close()));
    });

    describeValuesContract(subject);
    describeExpiryContract(subject);
    describeConcurrencyContract(subject);
    describeLockContract(subject);
    describeBucketContract(subject);
    describeChannelsContract(subject);
  });
}
