/**
 * The data files are owner-only after a start in a data folder the operator
 * made first (0755, as `mkdir` makes it), and after a start that finds files
 * an older version left readable by everyone.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminClient, startTestGateway } from '../../../support/gateway.ts';

const DATA_FILES = ['portcullis.sqlite', 'portcullis.sqlite-wal', 'portcullis.sqlite-shm'];

function modes(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((name) => [name, (statSync(join(dir, name)).mode & 0o777).toString(8)]),
  );
}

async function startAndWrite(dataDir: string): Promise<void> {
  const gateway = await startTestGateway({ dataDir });
  try {
    const admin = adminClient(gateway.url, gateway.adminToken ?? '');
    if (gateway.adminToken) await admin('POST', '/workspaces', { name: 'written' });
    // Every data file exists while the gateway runs (the WAL and its index).
    for (const name of DATA_FILES) expect(readdirSync(dataDir)).toContain(name);
    for (const name of [...DATA_FILES, 'master-keys.json']) {
      expect([name, modes(dataDir)[name]]).toEqual([name, '600']);
    }
  } finally {
    await gateway.close();
  }
}

describe('the data files', () => {
  it('are owner-only after a start in a folder the operator made', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'portcullis-modes-')), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    await startAndWrite(dataDir);
  });

  it('are made owner-only when an earlier start left them readable by everyone', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'portcullis-modes-')), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    await startAndWrite(dataDir);
    for (const name of DATA_FILES) {
      try {
        chmodSync(join(dataDir, name), 0o644);
      } catch {
        // A clean close may have removed the WAL and its index.
      }
    }
    await startAndWrite(dataDir);
  });
});
