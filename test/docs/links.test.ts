/** Every relative link in README.md and docs/*.md names a file that exists, and a heading that exists in it. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/fixtures.ts';
import { allPages, anchorsOf, prose } from './pages.ts';

/** Each relative link of a page: `[text](target)` outside code, not a URL. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the documentation links', () => {
  const pages = allPages();

  it('has pages to check', () => {
    expect(pages.map((page) => page.path)).toContain('docs/reason-codes.md');
  });

  it.each(pages.map((page) => [page.path, page] as const))(
    '%s: every relative link resolves',
    (_, page) => {
      const broken: string[] = [];
      for (const target of relativeLinks(page.text)) {
        const [file = '', anchor] = target.split('#');
        const path = file === '' ? join(ROOT, page.path) : join(ROOT, dirname(page.path), file);
        if (!existsSync(path)) {
          broken.push(`${target}: no file ${relative(ROOT, path)}`);
          continue;
        }
        if (
          anchor !== undefined &&
          !(statSync(path).isFile() && anchorsOf(readFileSync(path, 'utf8')).has(anchor))
        )
          broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, path)}`);
      }
      expect(broken).toEqual([]);
    },
  );

  it('README.md links every page under docs/', () => {
    const readme = pages[0]!;
    const linked = new Set(relativeLinks(readme.text).map((target) => target.split('#')[0]));
    const unlinked = pages.slice(1).filter((page) => !linked.has(page.path));
    expect(unlinked.map((page) => page.path)).toEqual([]);
  });
});
