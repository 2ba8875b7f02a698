/**
 * A worker thread that checks one corpus document at a time, so a 20 MB
 * document's compiled schemas live and die with its own heap, and two cores
 * check two documents at once.
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';
import type { CheckOptions, DocumentCheck } from './check-document.ts';

interface Job {
  path: string;
  file: string;
}
type Reply = { ready: true } | { check: DocumentCheck };

if (parentPort) {
  const port = parentPort;
  const { createDocumentChecker } = await import('./check-document.ts');
  const check = createDocumentChecker(workerData as CheckOptions);
  port.on('message', (job: Job) => {
    check(job.path, job.file).then((result) => port.postMessage({ check: result } satisfies Reply));
  });
  port.postMessage({ ready: true } satisfies Reply);
}

export interface DocumentWorkerOptions extends CheckOptions {
  /** V8 old-generation limit of the worker, in MB. */
  heapMb: number;
}

/** `createDocumentChecker()`, run in a worker started now. A worker that dies is not reused. */
export class DocumentWorker {
  // The worker registers tsx itself: a loader given in execArgv does not reach its entry module on Node 20.
  readonly #worker: Worker;
  readonly #ready: Promise<void>;
  #pending: { resolve: (check: DocumentCheck) => void; reject: (error: Error) => void } | undefined;
  #dead: Error | undefined;

  constructor(options: DocumentWorkerOptions) {
    this.#worker = new Worker(
      `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`,
      {
        eval: true,
        workerData: { validate: options.validate } satisfies CheckOptions,
        resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
      },
    );
    this.#ready = new Promise((resolve, reject) => {
      this.#worker.on('message', (reply: Reply) => {
        if ('ready' in reply) return resolve();
        const pending = this.#pending;
        this.#pending = undefined;
        pending?.resolve(reply.check);
      });
      this.#worker.on('error', (error) => reject(this.#die(error)));
      this.#worker.on('exit', (code) =>
        reject(this.#die(new Error(`the worker exited with code ${code}`))),
      );
    });
    // A worker that dies before it is ready fails its first check, not the process.
    this.#ready.catch(() => {});
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  /**
   * Checks one document; rejects if the worker dies (out of memory, say) or the
   * check takes longer than `timeoutMs` (the worker's start-up not counted).
   */
  async check(path: string, file: string, timeoutMs: number): Promise<DocumentCheck> {
    if (this.#pending) throw new TypeError('a DocumentWorker checks one document at a time');
    await this.#ready;
    if (this.#dead) throw this.#dead;
    return new Promise<DocumentCheck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#die(new Error(`no result after ${timeoutMs / 1000} s: the worker was stopped`));
        void this.#worker.terminate();
      }, timeoutMs);
      this.#pending = {
        resolve: (check) => {
          clearTimeout(timer);
          resolve(check);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#worker.postMessage({ path, file } satisfies Job);
    });
  }

  close(): Promise<number> {
    this.#dead ??= new Error('the worker was closed');
    return this.#worker.terminate();
  }

  #die(error: Error): Error {
    this.#dead ??= error;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(this.#dead);
    return this.#dead;
  }
}
