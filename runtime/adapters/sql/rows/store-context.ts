/** What each row set gets from the store it belongs to. */
import type { Kysely } from 'kysely';
import type { Reference } from '../tables/constraint-errors.ts';
import type { Database, Engine } from '../tables/schema.ts';

export interface StoreContext {
  readonly engine: Engine;
  /** The database, or the open transaction when the store is bound to one. */
  readonly db: Kysely<Database>;
  /**
   * Runs a governance mutation: in one transaction (the open one, or a new
   * one) together with the revision bump, all or nothing. Unique and
   * foreign-key violations come out as `GatewayError`s; `references` are the
   * rows the write points at, in the order to report a missing one.
   */
  mutate<T>(
    work: (db: Kysely<Database>) => Promise<T>,
    references?: readonly Reference[],
  ): Promise<T>;
  /** Runs writes that are not governance changes in one transaction (the open one, or a new one). */
  atomically<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
}
