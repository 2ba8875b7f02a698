/** A scratch copy of the repository's compiler, specs and generated output, for commands that write. */
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './fixtures.ts';

/** Makes the copy and returns its folder; the real repository is never touched. */
export function scratchRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'portcullis-repo-'));
  for (const folder of ['generators', 'specs', 'generated'])
    cpSync(join(ROOT, folder), join(repo, folder), { recursive: true });
  for (const file of ['package.json', 'biome.json']) cpSync(join(ROOT, file), join(repo, file));
  symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'));
  return repo;
}
