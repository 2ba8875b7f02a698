/**
 * `portcullis actions x | head -4`: a reader that stops early ends the
 * output, not the command. The real command runs in a child process whose
 * stdout pipe is closed before it writes a line; it finishes quietly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../../../support/fixtures.ts';

it('finishes quietly when the reader of its output goes away', { timeout: 60_000 }, async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'runtime', 'cli.ts'), '--help'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NO_COLOR: '1',
        PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-pipe-')),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // The reader is gone before the command writes anything.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect([code, stderr]).toEqual([0, '']);
});
