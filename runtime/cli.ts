/**
 * `portcullis`: the operator's command. It opens the same store the server
 * uses (PORTCULLIS_DATA_DIR or DATABASE_URL, else the `./data` it finds) and
 * calls the operator verbs the admin API calls; a running server sees every
 * change on its next request.
 */
import { fileURLToPath } from 'node:url';
import { terminalOutput } from './adapters/cli/output.ts';
import { runPortcullis } from './adapters/cli/run.ts';
import { inertText } from './core/base/inert-text.ts';

// A reader that stops early (`portcullis actions x | head -4`) ends the output, not the command.
let readerGone = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  readerGone = true;
});

runPortcullis(process.argv.slice(2), {
  env: process.env,
  output: (json) => {
    const out = terminalOutput(json);
    return {
      ...out,
      write: (text) => {
        if (!readerGone) out.write(text);
      },
    };
  },
  // One level below the project root, both as source (runtime/) and bundled (dist/).
  catalogs: new URL('../generated/', import.meta.url),
  cwd: process.cwd(),
  checkout: fileURLToPath(new URL('..', import.meta.url)),
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
