/**
 * The server bundle loads only what the configuration uses: its entry
 * imports no database or Redis driver up front (they are chunks loaded when
 * configured), and it is ASCII throughout (else Node decodes the whole file
 * the slow way). Built in memory from the options `npm run build` uses.
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { serverBuild } from '../../scripts/build-options.mjs';
import { ROOT } from '../support/fixtures.ts';

/** The packages and modules the entry chunk imports statically, outside itself. */
function staticImports(metafile: Metafile, output: string): string[] {
  const seen = new Set<string>();
  const external: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) external.push(imported.path);
      else visit(imported.path);
    }
  };
  visit(output);
  return external;
}

describe('the server bundle', () => {
  it('imports no database or Redis driver up front, and is ASCII', async () => {
    const result = await build({
      ...serverBuild,
      absWorkingDir: ROOT,
      write: false,
      metafile: true,
      sourcemap: false,
    });
    const entry = Object.keys(result.metafile.outputs).find((file) => file.endsWith('server.mjs'))!;
    const imported = staticImports(result.metafile, entry);
    for (const driver of ['pg', 'ioredis', 'better-sqlite3'])
      expect(imported, driver).not.toContain(driver);
    // Bundled, not read from node_modules one file at a time.
    expect(imported.filter((path) => !path.startsWith('node:'))).toEqual(['pino']);
    for (const file of result.outputFiles.filter((f) => f.path.endsWith('.mjs')))
      expect(
        file.contents.every((byte) => byte < 0x80),
        file.path,
      ).toBe(true);
  }, 120_000);
});
