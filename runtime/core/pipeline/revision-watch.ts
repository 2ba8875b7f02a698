/**
 * The one watcher of the store's revision. A change of grants, policies,
 * connections, credentials or catalogs moves it, whoever made it (this
 * process, the `portcullis` command, another replica); the parts that act on
 * such a change (the tool list changes agents listen for, the upstream
 * sessions of a removed connection or a rotated credential) listen here,
 * and one check (at most one at a time, twice a second while any listener
 * has something to check for) reads the governance snapshot once for all.
 * A listener's slow work (ending sessions upstream) is its own to run: it
 * never holds the next check, so no listener delays another.
 */
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { GovernanceReader } from '../identity/principals/principals.ts';

export interface RevisionListener {
  /**
   * Asked before each check reads the snapshot: whether this listener has
   * anything to check for now (no listener that has: no read at all). What
   * it records here was there before the snapshot it is given was read.
   */
  beforeCheck(): boolean;
  /**
   * The snapshot the check read (every listener is given the same one). Work
   * that waits on anything runs on after this returns, its listener's own.
   */
  checked(snapshot: GovernanceSnapshot): void;
}

export interface RevisionWatchOptions {
  /** How often the revision is checked while anyone listens. Default 500 ms. */
  intervalMs?: number;
  /** Told about a failed check or listener (the operator's log); the next check tries again. */
  report?: (error: unknown) => void;
}

const DEFAULT_INTERVAL_MS = 500;

export class RevisionWatch {
  readonly #governance: GovernanceReader;
  readonly #intervalMs: number;
  readonly #report: (error: unknown) => void;
  readonly #listeners = new Set<RevisionListener>();
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;

  constructor(governance: GovernanceReader, options: RevisionWatchOptions = {}) {
    this.#governance = governance;
    this.#intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.#report = options.report ?? (() => {});
  }

  /** Checks for `listener` from now on; returns what stops it. */
  listen(listener: RevisionListener): () => void {
    this.#listeners.add(listener);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.check(), this.#intervalMs);
      this.#timer.unref();
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stopTimer();
    };
  }

  /** Checks now (one check at a time): a change someone just made reaches the listeners at once. */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  /** Stops checking; a check under way finishes (what it returns). */
  close(): Promise<void> {
    this.#stopTimer();
    this.#listeners.clear();
    return this.#checking ?? Promise.resolve();
  }

  get listening(): number {
    return this.#listeners.size;
  }

  async #check(): Promise<void> {
    const due = [...this.#listeners].filter((listener) => listener.beforeCheck());
    if (due.length === 0) return;
    let snapshot: GovernanceSnapshot;
    try {
      snapshot = await this.#governance.current();
    } catch (error) {
      this.#report(error);
      return;
    }
    for (const listener of due) {
      try {
        listener.checked(snapshot);
      } catch (error) {
        this.#report(error);
      }
    }
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
