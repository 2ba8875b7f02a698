/** Every OpenAPI document (`.json`, `.yaml`, `.yml`) under a folder, largest first. */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export interface CorpusDocument {
  /** Absolute (or cwd-relative) path to read. */
  path: string;
  /** Path under the corpus folder, with `/` separators. */
  file: string;
  bytes: number;
}

const EXTENSIONS = /\.(json|ya?ml)$/i;

/** Largest first, so the slowest documents start early and do not finish the run alone. */
export async function findDocuments(folder: string): Promise<CorpusDocument[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const documents = await Promise.all(
    entries
      .filter((entry) => entry.isFile() && EXTENSIONS.test(entry.name))
      .map(async (entry) => {
        const path = join(entry.parentPath, entry.name);
        const { size } = await stat(path);
        return { path, file: relative(folder, path).split(sep).join('/'), bytes: size };
      }),
  );
  return documents.sort((a, b) => b.bytes - a.bytes || (a.file < b.file ? -1 : 1));
}
