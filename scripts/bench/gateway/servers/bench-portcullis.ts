/**
 * Portcullis as a benchmark child: started in a data folder of its own with a
 * fresh master key (the bundle runs from .cache/bench-gateway/bin, so the
 * catalogs are named by the checkout's path), announced once set up, and
 * removed with its folder on SIGTERM or SIGINT.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configFromEnvironment } from '../../../../runtime/core/config/config.ts';
import { type RunningServer, startServer } from '../../../../runtime/server.ts';

export async function startBenchPortcullis(
  environment: Record<string, string>,
): Promise<{ running: RunningServer; announce(line: Record<string, unknown>): void }> {
  const generated = pathToFileURL(
    join(process.env.PORTCULLIS_ROOT ?? process.cwd(), 'generated', '/'),
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-'));
  const running = await startServer(
    configFromEnvironment({
      PORT: '0',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_MASTER_KEY: randomBytes(32).toString('base64'),
      ...environment,
    }),
    generated,
  );
  const stop = () => {
    running.close().finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return {
    running,
    announce: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
  };
}
