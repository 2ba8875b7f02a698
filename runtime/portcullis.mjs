#!/usr/bin/env node
// The `portcullis` command (package `bin`): runs the bundle `npm run build`
// writes to dist/, building it first in a checkout that has none.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = new URL('../dist/portcullis.mjs', import.meta.url);
if (!existsSync(bundle)) {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
}
await import(bundle.href);
