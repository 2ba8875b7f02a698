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

if (parentPort) {
  const port = parentPort;
  const { createDocumentChecker } = await import('./check-document.ts');
  const check = createDocumentChecker(workerData as CheckOptions);
  port.on('message', (job: Job) => {
    check(job.path, job.file).then((result) => port.postMessage(result));
  });
}

export interface DocumentWorkerOptions extends CheckOptions {
  /** V8 old-generation limit of the worker, in MB. */
  heapMb: number;
}

/** `createDocumentChecker()`, run in a worker started now. A worker that dies is not reused. */
export class DocumentWorker {
  // The worker registers tsx itself: a loader given in execArgv does not reach its entry module on Node 20.
  readonly #worker: Worker;
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
    this.#worker.on('message', (check: DocumentCheck) => {
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.resolve(check);
    });
    this.#worker.on('error', (error) => this.#die(error));
    this.#worker.on('exit', (code) => this.#die(new Error(`the worker exited with code ${code}`)));
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  /** Checks one document; rejects if the worker dies (out of memory, say) or takes longer than `timeoutMs`. */
  check(path: string, file: string, timeoutMs: number): Promise<DocumentCheck> {
    if (this.#dead) return Promise.reject(this.#dead);
    if (this.#pending) throw new TypeError('a DocumentWorker checks one document at a time');
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

  #die(error: Error): void {
    this.#dead ??= error;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error);
  }
}
