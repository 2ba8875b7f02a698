/** docs/reason-codes.md's table says what the one table in runtime/core/base/errors.ts says. */
import { describe, expect, it } from 'vitest';
import { REASONS } from '../../runtime/core/base/errors.ts';
import { readPage } from './pages.ts';

function tableRows() {
  const text = readPage('docs/reason-codes.md').text;
  const table = text.slice(text.indexOf('| code'));
  return [
    ...table.matchAll(/^\| `([a-z_]+)` +\| (\d+) +\| (-?\d+) +\| (\w+) +\| (.+?) +\|$/gm),
  ].map((m) => ({
    code: m[1]!,
    status: Number(m[2]),
    rpc: Number(m[3]),
    audited: m[4]!,
    message: m[5]!,
  }));
}

describe('docs/reason-codes.md', () => {
  it('lists every code of the table, each with its status, JSON-RPC code, audit verdict and public message', () => {
    expect(tableRows()).toEqual(
      Object.entries(REASONS).map(([code, reason]) => ({
        code,
        status: reason.status,
        rpc: reason.rpc,
        audited: reason.audited,
        message: reason.expose ? reason.message : '(not shown)',
      })),
    );
  });
});
