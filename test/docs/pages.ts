/** The documentation the docs tests read: README.md and every page under docs/, with their code. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/fixtures.ts';

export interface Page {
  /** The page's path from the repository root, `README.md` or `docs/<name>.md`. */
  path: string;
  text: string;
}

export function readPage(path: string): Page {
  return { path, text: readFileSync(join(ROOT, path), 'utf8') };
}

/** README.md, then docs/*.md in name order. */
export function allPages(): Page[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map(readPage);
}

/** The page without its fenced code blocks (each replaced by blank lines, so line numbers hold). */
export function prose(text: string): string {
  return text.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ''));
}

/** Each command a page shows: every line of a fenced block, and every inline code span. */
export function commandTexts(text: string): string[] {
  const blocks = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
  const spans = [...prose(text).matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...blocks, ...spans].map((line) => line.trim());
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a page's headings make (outside code blocks), with GitHub's `-1` suffixes for repeats. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(m[1]!);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}
