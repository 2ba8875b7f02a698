/**
 * The contract every `Store` implementation keeps. Each engine's test file
 * calls `describeStoreContract` with a harness that makes empty databases;
 * every test gets its own.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../../../runtime/core/ports/store.ts';
import { describeAccessContract } from './contract/access-contract.ts';
import { describeApprovalContract } from './contract/approval-contract.ts';
import { describeAuditContract } from './contract/audit-contract.ts';
import { describeConnectionContract } from './contract/connection-contract.ts';
import { describeIdentityContract } from './contract/identity-contract.ts';
import { describeIdpContract } from './contract/idp-contract.ts';
import { describeMemberGrantContract } from './contract/member-grant-contract.ts';
import { describeOAuthContract } from './contract/oauth-contract.ts';
import { describePersistenceContract } from './contract/persistence-contract.ts';
import { describeRateLimitContract } from './contract/rate-limit-contract.ts';
import { describeRemoteContract } from './contract/remote-contract.ts';
import { describeRevisionContract } from './contract/revision-contract.ts';
import { describeTaskContract } from './contract/task-contract.ts';
import { describeTransactionContract } from './contract/transaction-contract.ts';
import { describeUpstreamOAuthContract } from './contract/upstream-oauth-contract.ts';

export interface StoreHarness {
  /** Makes a new, empty database; each call of the returned function opens that same database. */
  create(): Promise<() => Promise<Store>>;
}

/** The store a contract test runs against, fresh for each test. */
export interface StoreSubject {
  readonly store: Store;
  /** Opens the test's database once more (another process, or after a restart). */
  open(): Promise<Store>;
  /** Closes a store this subject opened. */
  close(store: Store): Promise<void>;
}

export function describeStoreContract(name: string, harness: StoreHarness): void {
  describe(`${name} store`, () => {
    let opener: (() => Promise<Store>) | undefined;
    let current: Store | undefined;
    const opened = new Set<Store>();

    const subject: StoreSubject = {
      get store() {
        if (current === undefined) throw new Error('no store: used outside a test');
        return current;
      },
      async open() {
        if (opener === undefined) throw new Error('no database: used outside a test');
        const store = await opener();
        opened.add(store);
        return store;
      },
      async close(store) {
        opened.delete(store);
        await store.close();
      },
    };

    beforeEach(async () => {
      opener = await harness.create();
      current = await subject.open();
    });

    afterEach(async () => {
      const stores = [...opened];
      opened.clear();
      current = undefined;
      await Promise.all(stores.map((store) => store.close()));
    });

    describeIdentityContract(subject);
    describeIdpContract(subject);
    describeConnectionContract(subject);
    describeAccessContract(subject);
    describeAuditContract(subject);
    describeRevisionContract(subject);
    describeTransactionContract(subject);
    describePersistenceContract(subject);
    describeOAuthContract(subject);
    describeRemoteContract(subject);
    describeUpstreamOAuthContract(subject);
    describeMemberGrantContract(subject);
    describeTaskContract(subject);
    describeApprovalContract(subject);
    describeRateLimitContract(subject);
  });
}
