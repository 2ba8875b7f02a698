/**
 * The console built as `npm run build` builds it (its own Vite config), into
 * a temporary folder of this test process: what a test gateway serves at
 * `/console`. Built once per process; a test file that needs it awaits it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { ROOT } from './fixtures.ts';

let built: Promise<URL> | undefined;

export function builtConsole(): Promise<URL> {
  built ??= (async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'portcullis-console-'));
    await build({
      configFile: join(ROOT, 'runtime/console/vite.config.ts'),
      build: { outDir, emptyOutDir: true },
      logLevel: 'error',
    });
    return pathToFileURL(`${outDir}/`);
  })();
  return built;
}
