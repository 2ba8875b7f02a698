/** The README's table of reason codes says what the one table in runtime/core/errors.ts says. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REASONS } from '../../runtime/core/errors.ts';
import { ROOT } from '../support/fixtures.ts';

function readmeRows(): Array<{ code: string; status: number; rpc: number; audited: string }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Reason codes'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| code')));
  return [...table.matchAll(/^\| `([a-z_]+)` +\| (\d+) +\| (-?\d+) +\| (\w+) +\|/gm)].map((m) => ({
    code: m[1]!,
    status: Number(m[2]),
    rpc: Number(m[3]),
    audited: m[4]!,
  }));
}

describe("the README's reason codes", () => {
  it('list every code of the table, each with its status, JSON-RPC code and audit verdict', () => {
    expect(readmeRows()).toEqual(
      Object.entries(REASONS).map(([code, reason]) => ({
        code,
        status: reason.status,
        rpc: reason.rpc,
        audited: reason.audited,
      })),
    );
  });
});
