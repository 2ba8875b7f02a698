/**
 * Whether this replica is ready to serve (`GET /readyz`), checked live on
 * each ask: the store answers a small query, the shared state (Redis, when
 * one is configured) answers a read, and the catalogs are loaded (they are,
 * once the gateway is open: a start that cannot load them fails). Each check
 * has a short deadline, so a backing service that hangs makes the replica
 * not ready rather than making the probe wait. Asks that arrive while a
 * check runs share it: a flood of probes costs one query at a time.
 */
import { GatewayError } from '../base/errors.ts';
import type { SharedState } from '../ports/shared-state/shared-state.ts';
import type { Store } from '../ports/store.ts';

/** What `/readyz` names: `store`, `redis`, `audit_journal` (its fold fallen behind). */
export type ReadinessPart = 'store' | 'redis' | 'audit_journal';

/** The audit journal as readiness sees it: how far its fold is behind. */
export interface JournalBacklog {
  lag(): { bytes: number; oldestMs: number };
}

/** A journal whose oldest line has waited longer than this to be folded is not ready. */
export const JOURNAL_BEHIND_MS = 10_000;

export interface ReadinessOptions {
  store: Store;
  /** The shared state when it is Redis; unset, there is nothing to reach. */
  redis?: SharedState | undefined;
  /** The provider catalogs loaded at start, by id. */
  catalogs: readonly string[];
  /** The calls' audit journal, when there is one. */
  journal?: JournalBacklog | undefined;
  /** How long each check may take; default 2 s. */
  timeoutMs?: number;
}

export interface ReadyReport {
  status: 'ready';
  store: 'ok';
  redis: 'ok' | 'not configured';
  /** Bytes of the audit journal not yet folded into the store (absent without a journal). */
  auditJournal?: { behindBytes: number; oldestMs: number };
  catalogs: readonly string[];
}

/** A part that failed its check, and why (the operator's to see, never the caller's). */
export interface NotReadyPart {
  part: ReadinessPart;
  cause: unknown;
}

export type ReadinessResult =
  | { ready: true; report: ReadyReport }
  | { ready: false; error: GatewayError; failed: NotReadyPart[] };

export class Readiness {
  readonly #options: ReadinessOptions;
  readonly #timeoutMs: number;
  #pending: Promise<ReadinessResult> | undefined;

  constructor(options: ReadinessOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? 2_000;
  }

  /** Checks now, or joins the check already running. */
  check(): Promise<ReadinessResult> {
    if (this.#pending === undefined) {
      const pending = this.#checkNow();
      this.#pending = pending;
      void pending.finally(() => {
        if (this.#pending === pending) this.#pending = undefined;
      });
    }
    return this.#pending;
  }

  async #checkNow(): Promise<ReadinessResult> {
    const { store, redis, catalogs } = this.#options;
    const checks: Array<[ReadinessPart, Promise<unknown>]> = [['store', store.revision()]];
    if (redis !== undefined) checks.push(['redis', redis.get('readiness')]);
    const lag = this.#options.journal?.lag();
    if (lag !== undefined && lag.oldestMs > JOURNAL_BEHIND_MS)
      checks.push([
        'audit_journal',
        Promise.reject(
          new Error(
            `${lag.bytes} bytes of the audit journal waited ${lag.oldestMs} ms to be folded`,
          ),
        ),
      ]);
    const settled = await Promise.all(
      checks.map(([part, check]) => this.#withDeadline(part, check)),
    );
    const failed = settled.filter((outcome): outcome is NotReadyPart => outcome !== undefined);
    if (failed.length === 0) {
      return {
        ready: true,
        report: {
          status: 'ready',
          store: 'ok',
          redis: redis === undefined ? 'not configured' : 'ok',
          ...(lag === undefined
            ? {}
            : { auditJournal: { behindBytes: lag.bytes, oldestMs: lag.oldestMs } }),
          catalogs,
        },
      };
    }
    const names = failed.map(({ part }) => part);
    const error = new GatewayError(
      'not_ready',
      `not ready: ${names.join(', ')} ${names.includes('audit_journal') ? 'behind or ' : ''}not answering`,
      {
        detail: { notReady: names },
      },
    );
    return { ready: false, error, failed };
  }

  /** Undefined when the check answered in time; the part and its cause otherwise. */
  async #withDeadline(
    part: ReadinessPart,
    check: Promise<unknown>,
  ): Promise<NotReadyPart | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    try {
      await Promise.race([check, deadline]);
      return undefined;
    } catch (cause) {
      // A late failure of the check itself is not left unhandled.
      check.catch(() => {});
      return { part, cause };
    } finally {
      clearTimeout(timer);
    }
  }
}
