/**
 * One measurement: a fresh child process, timed from spawn to exit (process
 * start included), with the peak RSS of the largest Node process it ran
 * (reported by process-usage.mjs, preloaded through NODE_OPTIONS).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE_MODULE = fileURLToPath(new URL('./process-usage.mjs', import.meta.url));

export interface ProcessRun {
  wallMs: number;
  /** Peak resident set size of the largest Node process of the run, in MB. */
  peakRssMb: number;
  exitCode: number | null;
  /** Bytes the run wrote into its output folder (set by the caller that owns the folder). */
  outputBytes?: number;
  /** The end of stderr and stdout, for a run that failed. */
  outputTail: string;
}

export interface ProcessCommand {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

export async function measureProcess(run: ProcessCommand): Promise<ProcessRun> {
  const usageDir = await mkdtemp(join(tmpdir(), 'portcullis-bench-usage-'));
  try {
    const env = {
      ...process.env,
      ...run.env,
      NODE_OPTIONS:
        `${process.env.NODE_OPTIONS ?? ''} --import=${JSON.stringify(USAGE_MODULE)}`.trim(),
      PORTCULLIS_BENCH_USAGE_DIR: usageDir,
    };
    const output: Buffer[] = [];
    const started = performance.now();
    const child = spawn(run.command, run.args, { cwd: run.cwd, env, stdio: 'pipe' });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    const wallMs = performance.now() - started;
    return {
      wallMs,
      peakRssMb: (await largestMaxRssKb(usageDir)) / 1024,
      exitCode,
      outputTail: Buffer.concat(output).toString('utf8').slice(-2000),
    };
  } finally {
    await rm(usageDir, { recursive: true, force: true });
  }
}

async function largestMaxRssKb(folder: string): Promise<number> {
  const reports = await Promise.all(
    (await readdir(folder)).map(
      async (name) =>
        JSON.parse(await readFile(join(folder, name), 'utf8')) as { maxRssKb: number },
    ),
  );
  return Math.max(0, ...reports.map((r) => r.maxRssKb));
}
