/**
 * docs/dependencies.md has one row per package of package.json, with the kind
 * package.json gives it, and a run-time package is one the shipped code
 * imports (or a peer of one that does): nothing used only by the tests is
 * installed at run time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/fixtures.ts';
import { readPage } from './pages.ts';

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  overrides: Record<string, Record<string, string>>;
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** What package.json says each package is. */
function kinds(): Array<[string, string]> {
  return [
    ...Object.keys(pkg.dependencies).map((name) => [name, 'run time'] as [string, string]),
    ...Object.keys(pkg.devDependencies).map((name) => [name, 'dev'] as [string, string]),
    ...Object.values(pkg.overrides).flatMap((nested) =>
      Object.keys(nested).map((name) => [name, 'override'] as [string, string]),
    ),
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Each row of the table: its package (the first code span) and its kind. */
function tableRows(): Array<[string, string]> {
  const rows = readPage('docs/dependencies.md')
    .text.split('\n')
    .filter((line) => /^\| `/.test(line));
  return rows
    .map((row) => {
      const [, name = '', kind = ''] = row.split('|');
      return [/`([^`]+)`/.exec(name)?.[1] ?? name.trim(), kind.trim()] as [string, string];
    })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every source file outside test/: what the gateway, the command, the compiler and the scripts are. */
function shippedSources(): string[] {
  const folders = ['runtime', 'generators', 'scripts', 'specs', 'generated'];
  return folders.flatMap((folder) =>
    (readdirSync(join(ROOT, folder), { recursive: true }) as string[])
      .filter((file) => /\.(ts|mjs|js)$/.test(file))
      .map((file) => readFileSync(join(ROOT, folder, file), 'utf8')),
  );
}

/** The peer dependencies of a package, from its installed package.json. */
function peersOf(name: string): string[] {
  const manifest = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
  );
  return Object.keys(manifest.peerDependencies ?? {});
}

describe('docs/dependencies.md', () => {
  it('has one row per package, each with the kind package.json gives it', () => {
    expect(tableRows()).toEqual(kinds());
  });
});

describe("package.json's run-time dependencies", () => {
  it('are each imported outside test/, or a peer of one that is', () => {
    const sources = shippedSources();
    const imported = (name: string) =>
      sources.some((source) => new RegExp(`(from |import\\()'${name}(/[^']*)?'`).test(source));
    const runtime = Object.keys(pkg.dependencies);
    const used = runtime.filter(imported);
    const peers = new Set(used.flatMap(peersOf));
    expect(runtime.filter((name) => !imported(name) && !peers.has(name))).toEqual([]);
  });
});
