// @ts-check
/**
 * Preloaded into every benchmark child (`NODE_OPTIONS=--import=<this file>`):
 * when the process exits, it writes its peak resident set size to
 * `$PORTCULLIS_BENCH_USAGE_DIR/<pid>.json`. Plain JavaScript, so the other
 * side's process pays for no TypeScript loader.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const folder = process.env.PORTCULLIS_BENCH_USAGE_DIR;
// maxRSS is the whole process's, worker threads included; only the main thread reports it.
if (folder && isMainThread) {
  process.on('exit', () => {
    const usage = { pid: process.pid, maxRssKb: process.resourceUsage().maxRSS };
    writeFileSync(join(folder, `${process.pid}.json`), JSON.stringify(usage));
  });
}
