/**
 * Sides of a comparison measured side by side: round after round, each side
 * once, the order rotating every round, so a noisy minute slows both.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureProcess, type ProcessCommand, type ProcessRun } from './measure-process.ts';

export interface Side {
  key: string;
  /** The command for one run, given a fresh, empty output folder. */
  command: (out: string) => ProcessCommand;
}

export interface InterleaveOptions {
  label: string;
  rounds: number;
  /** Rounds run first and thrown away (file cache, tsx's transform cache). */
  warmup: number;
}

export async function interleave(
  sides: Side[],
  options: InterleaveOptions,
): Promise<Map<string, ProcessRun[]>> {
  const runs = new Map<string, ProcessRun[]>(sides.map((side) => [side.key, []]));
  const total = options.warmup + options.rounds;
  for (let round = 0; round < total; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    const warm = round < options.warmup;
    for (const side of order) {
      const run = await runOnce(side);
      if (!warm) runs.get(side.key)!.push(run);
      const status = run.exitCode === 0 ? '' : ` (exit ${run.exitCode})`;
      console.error(
        `bench: ${options.label} ${side.key} ${warm ? 'warm-up' : `${round - options.warmup + 1}/${options.rounds}`}: ${(run.wallMs / 1000).toFixed(2)} s, ${Math.round(run.peakRssMb)} MB${status}`,
      );
    }
  }
  return runs;
}

async function runOnce(side: Side): Promise<ProcessRun> {
  const out = await mkdtemp(join(tmpdir(), 'portcullis-bench-out-'));
  try {
    const run = await measureProcess(side.command(out));
    return { ...run, outputBytes: await folderBytes(out) };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** What a run wrote into its output folder: proof that each side did its work. */
async function folderBytes(folder: string): Promise<number> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(
    entries
      .filter((e) => e.isFile())
      .map(async (e) => (await stat(join(e.parentPath, e.name))).size),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}
