/** Reading, comparing and atomically replacing the `generated/` folder. */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { byCodeUnit } from '../code-unit-order.ts';

export interface TreeDifference {
  missing: string[];
  different: string[];
  extra: string[];
}

export async function readTree(folder: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    files.set(relative(folder, file).split('\\').join('/'), await readFile(file, 'utf8'));
  }
  return files;
}

export function compareTrees(
  expected: Map<string, string>,
  actual: Map<string, string>,
): TreeDifference {
  const missing: string[] = [];
  const different: string[] = [];
  for (const [path, contents] of expected) {
    const found = actual.get(path);
    if (found === undefined) missing.push(path);
    else if (found !== contents) different.push(path);
  }
  const extra = [...actual.keys()].filter((path) => !expected.has(path));
  return {
    missing: missing.sort(byCodeUnit),
    different: different.sort(byCodeUnit),
    extra: extra.sort(byCodeUnit),
  };
}

/** Writes every file into a fresh sibling folder, then swaps it in: readers never see half a tree. */
export async function replaceTree(folder: string, files: Map<string, string>): Promise<void> {
  const staging = `${folder}.staging-${process.pid}`;
  const retired = `${folder}.retired-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  for (const [path, contents] of files) {
    const target = join(staging, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, contents);
  }
  let hadFolder = true;
  try {
    await rename(folder, retired);
  } catch {
    hadFolder = false;
  }
  await rename(staging, folder);
  if (hadFolder) await rm(retired, { recursive: true, force: true });
}

/** Replaces one file atomically (write beside it, then rename). */
export async function replaceFile(file: string, contents: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, file);
}
