/** docs/configuration.md's table names every variable the gateway's configuration reads, and no other. */
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../runtime/config/config.ts';
import { readPage } from './pages.ts';

/**
 * The variables in the table's first column (`HOST`, `PORT` share a row); the
 * per-connection OAuth client's row names a pattern, not a variable, and is left out.
 */
function tableVariables(): string[] {
  const text = readPage('docs/configuration.md').text;
  const rows = text.split('\n').filter((line) => /^\| `/.test(line));
  return rows.flatMap((row) =>
    [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!),
  );
}

describe('docs/configuration.md', () => {
  it('lists each variable of ConfigSchema once', () => {
    expect(tableVariables().sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
  });
});
