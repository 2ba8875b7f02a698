/**
 * A worker thread that emits documents' types with openapi-typescript, so
 * loading TypeScript and running it overlaps with validating and compiling on
 * the main thread. Its code is `types-thread.ts`.
 */
import { Worker } from 'node:worker_threads';
import type { OpenApiDocument } from '../openapi/load-document.ts';

export interface TypesJob {
  id: number;
  document: OpenApiDocument;
  banner: string[];
}
export type TypesReply = { id: number; types: string } | { id: number; error: string };

/** `createTypes()`, run in a worker thread started now. */
export class TypesWorker {
  readonly #worker = startThread();
  readonly #pending = new Map<
    number,
    { resolve: (types: string) => void; reject: (error: Error) => void }
  >();
  #next = 0;

  constructor() {
    this.#worker.on('message', (reply: TypesReply) => {
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if ('types' in reply) pending?.resolve(reply.types);
      else pending?.reject(new Error(reply.error));
    });
    this.#worker.on('error', (error) => {
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    });
  }

  readonly createTypes = (document: OpenApiDocument, banner: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, document, banner } satisfies TypesJob);
    });

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

/**
 * Built (`npm run build`), the thread's code is dist/types-thread.mjs, and this
 * module is in dist/ or dist/chunks/. From source, the thread registers tsx
 * itself: a loader given in execArgv does not reach a worker's entry module on Node 20.
 */
function startThread(): Worker {
  const here = import.meta.url;
  if (here.endsWith('.mjs')) {
    return new Worker(
      new URL(here.includes('/chunks/') ? '../types-thread.mjs' : './types-thread.mjs', here),
    );
  }
  const entry = new URL('./types-thread.ts', here).href;
  return new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`,
    { eval: true },
  );
}
