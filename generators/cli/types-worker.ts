/**
 * A worker thread that validates documents and emits their types, so loading
 * redocly and TypeScript, and running them, overlaps with compiling on the
 * main thread.
 */
import { parentPort, Worker } from 'node:worker_threads';
import type { DocumentAnalysis } from '../analyze-document.ts';
import type { OpenApiDocument } from '../openapi/load-document.ts';

interface Job {
  id: number;
  document: OpenApiDocument;
  banner: string[];
}
type Reply = { id: number; analysis: DocumentAnalysis } | { id: number; error: string };

if (parentPort) {
  const port = parentPort;
  const { createAnalyzer } = await import('../analyze-document.ts');
  const analyze = createAnalyzer();
  port.on('message', (job: Job) => {
    analyze(job.document, job.banner).then(
      (analysis) => port.postMessage({ id: job.id, analysis } satisfies Reply),
      (error: unknown) =>
        port.postMessage({
          id: job.id,
          error: error instanceof Error ? error.message : String(error),
        } satisfies Reply),
    );
  });
}

/** `createAnalyzer()`, run in a worker started now. */
export class AnalyzerWorker {
  // The worker registers tsx itself: a loader given in execArgv does not reach its entry module on Node 20.
  readonly #worker = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`,
    { eval: true },
  );
  readonly #pending = new Map<
    number,
    { resolve: (analysis: DocumentAnalysis) => void; reject: (error: Error) => void }
  >();
  #next = 0;

  constructor() {
    this.#worker.on('message', (reply: Reply) => {
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if ('analysis' in reply) pending?.resolve(reply.analysis);
      else pending?.reject(new Error(reply.error));
    });
    this.#worker.on('error', (error) => {
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    });
  }

  readonly analyze = (document: OpenApiDocument, banner: string[]): Promise<DocumentAnalysis> =>
    new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, document, banner } satisfies Job);
    });

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}
