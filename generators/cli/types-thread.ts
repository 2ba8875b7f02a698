/** The types worker thread's code: one reply per job. */
import { parentPort } from 'node:worker_threads';
import { createTypes } from '../emit/types-dts.ts';
import type { TypesJob, TypesReply } from './types-worker.ts';

const port = parentPort;
if (!port) throw new TypeError('types-thread.ts runs only as a worker thread');
port.on('message', (job: TypesJob) => {
  createTypes(job.document, job.banner).then(
    (types) => port.postMessage({ id: job.id, types } satisfies TypesReply),
    (error: unknown) =>
      port.postMessage({
        id: job.id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies TypesReply),
  );
});
