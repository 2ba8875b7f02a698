/**
 * The audit journal (issue 33, docs/operations.md#the-audit-journal): each call's audit
 * event is one line appended to this process's journal file before the
 * call's result goes back (one write(2) for the lines of every call that
 * ends in the same turn of the event loop; at once for a call that runs
 * alone), and folded into the store in batches off the reply path.
 *
 * - Durability: once `append` resolves the line is in the kernel, so a
 *   kill -9 of the process loses nothing (the same promise as the store's
 *   commit without fsync). An fsync runs every `FSYNC_MS` while lines were
 *   written since the last one: a power loss can take at most that long.
 * - The fold: every `FOLD_MS`, the lines not yet stored go to the store in
 *   one transaction with how far the file is folded (`audit_journal_folds`),
 *   so a fold cut off anywhere is taken up again from what the store says.
 *   This process folds its own lines from the records it keeps in memory
 *   until they are stored (the file is read back only for a dead process's
 *   lines, at open): no line is read or parsed twice on the reply's path.
 *   Reads of the audit log through the gateway's store wait for the fold of
 *   what was appended before them (`drain`), so they see every call answered.
 * - One file per process (`<pid>-<random>.jsonl` in `<data dir>/audit-journal`);
 *   at open, the files of processes no longer alive (a replica killed, a
 *   crash) are folded and removed first: a replica restarted folds what it
 *   had left. A file fully folded past `ROTATE_BYTES` is removed and a new
 *   one begun.
 * - The chain: each line carries sha256 over the previous line's hash and
 *   the event's canonical text (`core/governance/audit-chain.ts`); a new
 *   process chains on from the store's newest chained event.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  CHAIN_GENESIS,
  canonicalAuditEvent,
  chainHash,
  eventOfCanonical,
} from '../../core/governance/audit-chain.ts';
import type { ChainedAuditEvent, NewAuditEvent } from '../../core/model/governance.ts';
import type { AuditWriter } from '../../core/ports/audit-writer.ts';
import type { Store } from '../../core/ports/store.ts';

/** How often written lines are fsynced: what a power loss can take. */
export const FSYNC_MS = 100;
/** How often the lines appended are folded into the store. */
export const FOLD_MS = 25;
/**
 * The journal files this process has open: a second gateway in the same
 * process and data folder (in-process replicas, a command run beside a
 * server) must not take them for a dead process's.
 */
const OPEN_HERE = new Set<string>();
/** The journals of this process, for a read that must see every call this process answered. */
const JOURNALS_HERE = new Set<AuditJournal>();
/** Lines per fold transaction. */
const FOLD_LINES = 5_000;
/** A file fully folded beyond this size is removed and a new one begun. */
const ROTATE_BYTES = 64 * 1024 * 1024;

export interface AuditJournalOptions {
  /** The folder of the journal files (`<data dir>/audit-journal`). */
  folder: string;
  /** The store the lines are folded into (not a wrapper that drains this journal). */
  store: Store;
  /** Told of a fold or fsync that failed (the lines stay in the file and are folded later). */
  report?: ((error: unknown) => void) | undefined;
}

/** How far behind the fold is: bytes not yet stored, and how long the oldest has waited. */
export interface JournalLag {
  bytes: number;
  oldestMs: number;
}

export class AuditJournal implements AuditWriter {
  readonly #folder: string;
  readonly #store: Store;
  readonly #report: (error: unknown) => void;
  #name = '';
  #fd: number | undefined;
  #prevHash: string;
  /** Lines appended since open (across files): what `beside` compares to see appends meanwhile. */
  #appends = 0;
  #written = 0;
  #folded = 0;
  /** The records appended and not yet stored, oldest first, each with its line's length in bytes. */
  #unfolded: Array<{ record: ChainedAuditEvent; bytes: number }> = [];
  /** Lines chained and not yet written (this turn's), each with its append's settlement. */
  #pending: Array<{
    line: string;
    record: ChainedAuditEvent;
    done: () => void;
    failed: (error: unknown) => void;
  }> = [];
  #writeScheduled = false;
  /** When the oldest line not yet folded was written (0: none waits). */
  #oldestAt = 0;
  #dirty = false;
  #folding: Promise<void> | undefined;
  #foldTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #fsyncTimer: ReturnType<typeof setInterval>;
  #closed = false;

  private constructor(options: AuditJournalOptions, prevHash: string) {
    this.#folder = options.folder;
    this.#store = options.store;
    this.#report = options.report ?? (() => {});
    this.#prevHash = prevHash;
    this.#fsyncTimer = setInterval(() => this.#fsync(), FSYNC_MS);
    this.#fsyncTimer.unref();
  }

  /** Folds the files left by processes no longer alive, then opens this process's journal. */
  static async open(options: AuditJournalOptions): Promise<AuditJournal> {
    mkdirSync(options.folder, { recursive: true, mode: 0o700 });
    await AuditJournal.foldLeft(options.folder, options.store);
    const head = await options.store.audit.head();
    const journal = new AuditJournal(options, head?.hash ?? CHAIN_GENESIS);
    JOURNALS_HERE.add(journal);
    return journal;
  }

  /**
   * Folds the files in `folder` left by processes no longer alive, and removes
   * them: also run with the journal off, so turning it off loses no event.
   */
  static async foldLeft(folder: string, store: Store): Promise<void> {
    if (!existsSync(folder)) return;
    for (const name of readdirSync(folder)) {
      const pid = journalPid(name);
      if (pid === undefined || alive(pid) || OPEN_HERE.has(join(folder, name))) continue;
      await foldWhole(store, join(folder, name), name);
    }
  }

  /**
   * Drains every journal this process has open (in-process replicas share a
   * store): a read after any of them answered a call sees its event. Another
   * process's journal is folded by that process, within `FOLD_MS`.
   */
  static async drainHere(): Promise<void> {
    await Promise.all([...JOURNALS_HERE].map((journal) => journal.drain()));
  }

  /**
   * Runs a write of the store's own (an operator's, OAuth's event appended
   * in its transaction) after every journal here is folded, so the log's ids
   * keep the order the events happened in; then each journal on the same
   * store that appended nothing meanwhile chains on from the event written,
   * so removing it breaks the link of the next call's.
   */
  async beside<T>(write: () => Promise<T>): Promise<T> {
    await AuditJournal.drainHere();
    const same = [...JOURNALS_HERE]
      .filter((journal) => journal.#store === this.#store)
      .map((journal) => ({ journal, at: journal.#appends }));
    const result = await write();
    if (same.some(({ journal, at }) => journal.#appends === at)) {
      const head = await this.#store.audit.head();
      for (const { journal, at } of same)
        if (head !== undefined && journal.#appends === at) journal.#prevHash = head.hash;
    }
    return result;
  }

  /**
   * Chains the event and writes its line before the returned promise
   * settles: at once when `alone` (no other call runs to share a write
   * with), otherwise with the other lines appended in this turn of the
   * event loop, in one `write(2)`.
   */
  append(event: NewAuditEvent, { alone = false } = {}): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the audit journal is closed'));
    const canonical = canonicalAuditEvent(event);
    const prevHash = this.#prevHash;
    const hash = chainHash(prevHash, canonical);
    this.#prevHash = hash;
    this.#appends += 1;
    const written = new Promise<void>((done, failed) => {
      this.#pending.push({
        line: `{"p":"${prevHash}","h":"${hash}","e":${canonical}}\n`,
        record: { event, prevHash, hash },
        done,
        failed,
      });
    });
    if (alone) this.#writePending();
    else if (!this.#writeScheduled) {
      this.#writeScheduled = true;
      setImmediate(() => this.#writePending());
    }
    return written;
  }

  /** Writes the lines appended and not yet written, in one `write(2)`, and settles their appends. */
  #writePending(): void {
    this.#writeScheduled = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    try {
      const text = pending.length === 1 ? pending[0]!.line : pending.map((p) => p.line).join('');
      const bytes = Buffer.from(text, 'utf8');
      const fd = this.#fd ?? this.#begin();
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      // Not written: the chain goes on from the last line that was, and no call answers.
      this.#prevHash = pending[0]!.record.prevHash;
      for (const p of pending) p.failed(error);
      return;
    }
    for (const p of pending) {
      const length = Buffer.byteLength(p.line, 'utf8');
      this.#written += length;
      this.#unfolded.push({ record: p.record, bytes: length });
    }
    this.#dirty = true;
    if (this.#oldestAt === 0) this.#oldestAt = Date.now();
    this.#foldSoon();
    for (const p of pending) p.done();
  }

  /** Resolves once every line appended before the call is in the store. */
  async drain(): Promise<void> {
    this.#writePending();
    const target = this.#written;
    const name = this.#name;
    while (this.#name === name && this.#folded < target) await this.#fold();
  }

  lag(): JournalLag {
    return {
      bytes: this.#written - this.#folded,
      oldestMs: this.#oldestAt === 0 ? 0 : Date.now() - this.#oldestAt,
    };
  }

  /** Folds what is left, fsyncs, and removes the file (kept, to fold at the next start, if the store fails). */
  async close(): Promise<void> {
    JOURNALS_HERE.delete(this);
    clearInterval(this.#fsyncTimer);
    clearTimeout(this.#foldTimer);
    await this.drain();
    this.#closed = true;
    await this.#folding;
    if (this.#fd !== undefined) {
      closeSync(this.#fd);
      this.#fd = undefined;
      const path = join(this.#folder, this.#name);
      if (this.#folded === this.#written) unlinkSync(path);
      // Left behind (the store failed): this process's next journal there folds it.
      OPEN_HERE.delete(path);
    }
  }

  #begin(): number {
    this.#name = `${process.pid}-${randomBytes(6).toString('hex')}.jsonl`;
    const path = join(this.#folder, this.#name);
    this.#fd = openSync(path, 'a+', 0o600);
    OPEN_HERE.add(path);
    this.#written = 0;
    this.#folded = 0;
    return this.#fd;
  }

  #foldSoon(): void {
    if (this.#foldTimer !== undefined) return;
    this.#foldTimer = setTimeout(() => {
      this.#foldTimer = undefined;
      this.#fold().catch(this.#report);
    }, FOLD_MS);
    this.#foldTimer.unref();
  }

  /** One fold at a time: a call while one runs waits for it. */
  #fold(): Promise<void> {
    this.#folding ??= this.#foldNow().finally(() => {
      this.#folding = undefined;
    });
    return this.#folding;
  }

  async #foldNow(): Promise<void> {
    if (this.#fd === undefined || this.#unfolded.length === 0) return;
    const taken = this.#unfolded.slice(0, FOLD_LINES);
    let foldedBytes = this.#folded;
    for (const { bytes } of taken) foldedBytes += bytes;
    await this.#store.audit.appendChained(
      taken.map(({ record }) => record),
      { journal: this.#name, foldedBytes },
    );
    // Appends go on meanwhile, after the records taken: those are still the oldest.
    this.#unfolded.splice(0, taken.length);
    this.#folded = foldedBytes;
    if (this.#folded < this.#written) {
      this.#oldestAt = Date.now();
      this.#foldSoon();
    } else {
      this.#oldestAt = 0;
      if (this.#written > ROTATE_BYTES) this.#rotate();
    }
  }

  /** The file is fully folded (checked in the same turn as no append can run): a new one begins. */
  #rotate(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    const path = join(this.#folder, this.#name);
    unlinkSync(path);
    OPEN_HERE.delete(path);
    this.#fd = undefined;
  }

  #fsync(): void {
    if (!this.#dirty || this.#fd === undefined) return;
    this.#dirty = false;
    fsync(this.#fd, (error) => {
      if (error) this.#report(error);
    });
  }
}

/** The pid a journal file is named for, or undefined for a name not of ours. */
function journalPid(name: string): number | undefined {
  const match = /^(\d+)-[0-9a-f]{12}\.jsonl$/.exec(name);
  return match === null ? undefined : Number(match[1]);
}

/** Whether a process with this pid runs (another than this one: a name of ours left is a crash's). */
function alive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Folds a dead process's file from where the store says it was left, then removes it. */
async function foldWhole(store: Store, path: string, name: string): Promise<void> {
  const content = readFileSync(path);
  let at = await store.audit.foldedBytes(name);
  while (at < content.length) {
    const { records, bytes } = parseLines(content.subarray(at), FOLD_LINES);
    // A last line cut off (a power loss) never had its call answered.
    if (records.length === 0) break;
    at += bytes;
    await store.audit.appendChained(records, { journal: name, foldedBytes: at });
  }
  unlinkSync(path);
}

/** Whole lines from the start of `buffer` (at most `max`), and the bytes they take. */
function parseLines(buffer: Buffer, max: number): { records: ChainedAuditEvent[]; bytes: number } {
  const records: ChainedAuditEvent[] = [];
  let at = 0;
  while (records.length < max) {
    const end = buffer.indexOf(10, at);
    if (end === -1) break;
    const line = JSON.parse(buffer.toString('utf8', at, end)) as {
      p: string;
      h: string;
      e: unknown;
    };
    records.push({ event: eventOfCanonical(line.e), prevHash: line.p, hash: line.h });
    at = end + 1;
  }
  return { records, bytes: at };
}
