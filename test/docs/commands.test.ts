/**
 * The commands the documentation shows exist: every `portcullis <verb>` is a
 * command of the CLI's table, every `npm run <script>` a script of
 * package.json, and the README says how to get `portcullis` before it first
 * uses it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../runtime/adapters/cli/commands.ts';
import { ROOT } from '../support/fixtures.ts';
import { allPages, commandTexts, readPage } from './pages.ts';

const HELP = new Set(['help', '--help', '-h']);

/**
 * The verbs a `portcullis …` command line names (`member add|list` names two),
 * or none when it names a placeholder (`portcullis <command> --help`).
 */
function verbsOf(line: string): string[] {
  const [first, second = ''] = line
    .replace(/\s+#.*$/, '')
    .split(/\s+/)
    .slice(1);
  if (first === undefined || first.startsWith('<') || first === '…') return [];
  if (HELP.has(first)) return [];
  const pairs = second.split('|').map((word) => `${first} ${word}`);
  return pairs.every((pair) => commands[pair]) ? pairs : [first];
}

/** `portcullis …` (also after `npx`) at the start of a command text. */
function portcullisLines(text: string): string[] {
  return commandTexts(text)
    .map((line) => line.replace(/^(\$ |npx )/, ''))
    .filter((line) => /^portcullis(\s|$)/.test(line));
}

describe('the commands the documentation shows', () => {
  const pages = allPages();

  it.each(pages.map((page) => [page.path, page] as const))(
    '%s: every portcullis verb is a command',
    (_, page) => {
      const unknown = portcullisLines(page.text).filter((line) =>
        verbsOf(line).some((verb) => !commands[verb]),
      );
      expect(unknown).toEqual([]);
    },
  );

  it.each(pages.map((page) => [page.path, page] as const))(
    '%s: every npm run script exists',
    (_, page) => {
      const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
        .scripts as Record<string, string>;
      const named = [...page.text.matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map((m) => m[1]!);
      expect(named.filter((name) => !(name in scripts))).toEqual([]);
    },
  );

  it('the README says how to get the portcullis command before its first use', () => {
    const readme = readPage('README.md').text;
    const howTo = readme.search(/^## Get the `portcullis` command$/m);
    const lines = readme.split('\n');
    const firstUse = lines.findIndex((line) => /^(\$ )?portcullis\s/.test(line.trim()));
    const firstUseAt = lines.slice(0, firstUse).join('\n').length;
    expect(howTo).toBeGreaterThanOrEqual(0);
    expect(firstUse).toBeGreaterThanOrEqual(0);
    expect(firstUseAt).toBeGreaterThan(howTo);
  });
});
