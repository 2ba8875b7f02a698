/**
 * Copies SQLite's write-ahead log back into the database file once a
 * second, on a thread of its own: a checkpoint writes pages and fsyncs the
 * file twice, and on the event loop every call waiting for its audit event
 * would wait for those too. The thread holds a second connection to the same
 * file and runs `wal_checkpoint(PASSIVE)`, which never takes the write lock
 * and never waits for anyone: the gateway's own connection keeps writing
 * meanwhile, as WAL mode allows.
 *
 * The thread starts at the first tick, so a short-lived process (a
 * `portcullis` command) never starts one. Should it fail (it cannot open the
 * file, it dies), the checkpoints run on the caller's thread as before.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The thread's code: CommonJS, evaluated, with nothing of ours to import (so
 * it runs the same from the sources, a bundle or dist/). `driver` is the
 * resolved path of better-sqlite3.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.file, { fileMustExist: true });
database.pragma('journal_size_limit = ' + workerData.walSizeLimit);
const checkpoint = () => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The WAL stays longer; the next tick tries again.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

export interface WalCheckpointsOptions {
  file: string;
  intervalMs: number;
  /** After a checkpoint, a WAL file larger than this is cut back. */
  walSizeLimitBytes: number;
  /** The checkpoint on the caller's thread, for when the thread cannot run. */
  checkpointHere: () => void;
}

/** Starts the checkpoints; the function it returns stops them (before the database closes). */
export function startWalCheckpoints(options: WalCheckpointsOptions): () => void {
  let worker: Worker | undefined;
  let here: NodeJS.Timeout | undefined;
  let stopped = false;
  const runHere = () => {
    if (stopped || here !== undefined) return;
    here = setInterval(options.checkpointHere, options.intervalMs);
    here.unref();
  };
  const start = setTimeout(() => {
    try {
      worker = new Worker(THREAD, {
        eval: true,
        workerData: {
          driver: createRequire(import.meta.url).resolve('better-sqlite3'),
          file: options.file,
          intervalMs: options.intervalMs,
          walSizeLimit: options.walSizeLimitBytes,
        },
      });
    } catch {
      runHere();
      return;
    }
    worker.unref();
    worker.once('error', runHere);
  }, options.intervalMs);
  start.unref();
  return () => {
    stopped = true;
    clearTimeout(start);
    clearInterval(here);
    worker?.postMessage('stop');
  };
}
