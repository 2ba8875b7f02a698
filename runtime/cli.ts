/**
 * `portcullis`: the operator's command. It opens the same store the server
 * uses (PORTCULLIS_DATA_DIR or DATABASE_URL) and calls the operator verbs the
 * admin API calls; a running server sees every change on its next request.
 */

import { terminalOutput } from './cli/output.ts';
import { runPortcullis } from './cli/run.ts';
import { inertText } from './core/inert-text.ts';

runPortcullis(process.argv.slice(2), {
  env: process.env,
  output: terminalOutput,
  // One level below the project root, both as source (runtime/) and bundled (dist/).
  catalogs: new URL('../generated/', import.meta.url),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `portcullis: ${inertText(error instanceof Error ? error.message : String(error), { lines: true })}\n`,
    );
    process.exitCode = 1;
  },
);
