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
import { configFromEnvironment } from '../../../../runtime/config/config.ts';
import { createAgent } from '../../../../runtime/core/operator/agents.ts';
import { connect } from '../../../../runtime/core/operator/connections.ts';
import { grant } from '../../../../runtime/core/operator/grants.ts';
import { type RunningServer, startServer } from '../../../../runtime/server.ts';

export async function startBenchPortcullis(environment: Record<string, string>): Promise<{
  running: RunningServer;
  announce(line: Record<string, unknown>): void;
  /** Closes the server, removes its folder and exits (what SIGTERM does). */
  stop(): void;
}> {
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
    stop,
  };
}

/** The tool the benchmark calls: one read of the upstream's ~200-byte JSON. */
export const BENCH_TOOL = 'unikraft_get_user';

/**
 * One connection to Unikraft (its calls sent to `upstream` through the
 * development override, which `environmentFor` sets), its credential
 * verified and sealed in the vault, and one agent granted its reads: that
 * agent's key.
 */
export async function benchAgent(running: RunningServer): Promise<string> {
  const ctx = running.gateway.operator('bench');
  await connect(ctx, { workspace: 'default', provider: 'unikraft', credential: 'bench-token' });
  const { key } = await createAgent(ctx, { workspace: 'default', name: 'bench' });
  await grant(ctx, {
    workspace: 'default',
    agent: 'bench',
    connection: 'unikraft',
    scope: 'reads',
  });
  return key;
}

/**
 * The environment that sends Unikraft's calls to the benchmark's upstream,
 * with the audit journal as the bench's own environment sets it
 * (`PORTCULLIS_AUDIT_JOURNAL=on|off`; a base build's child keeps its own
 * choice, so a run with it set is this build's journal against the base's).
 */
export function environmentFor(upstream: URL): Record<string, string> {
  const journal = process.env.PORTCULLIS_AUDIT_JOURNAL;
  return {
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=${upstream.origin}`,
    ...(journal === undefined ? {} : { PORTCULLIS_AUDIT_JOURNAL: journal }),
  };
}
