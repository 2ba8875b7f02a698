/**
 * Which store the `portcullis` command opens when no variable names one: the
 * `./data` of the folder it runs in, else the `./data` of its checkout (where
 * `npm start` keeps it); neither holding a store, it refuses with a hint and
 * creates nothing. A named store (PORTCULLIS_DATA_DIR) is opened, and made
 * on first use, as the server does.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPortcullisHere } from '../../../support/run-cli.ts';

/** A folder to run in and a checkout, both empty; no variable names a store. */
function places(): { cwd: string; checkout: string } {
  const root = mkdtempSync(join(tmpdir(), 'portcullis-store-location-'));
  const cwd = join(root, 'elsewhere');
  const checkout = join(root, 'checkout');
  mkdirSync(cwd);
  mkdirSync(checkout);
  return { cwd, checkout };
}

/** Makes a store in `dir` the way a named one is made, with one agent in it. */
async function storeIn(dir: string, agent: string): Promise<void> {
  const made = await runPortcullisHere(['agent', 'create', agent], { PORTCULLIS_DATA_DIR: dir });
  expect(made.code).toBe(0);
}

describe('the store the command opens', () => {
  it('is none when neither folder holds one: it refuses with a hint and makes no ./data', async () => {
    const at = places();
    const outcome = await runPortcullisHere(['agent', 'list'], {}, at);
    expect([outcome.code, outcome.stdout, outcome.stderr]).toEqual([
      1,
      '',
      `portcullis: PORTCULLIS_DATA_DIR: no Portcullis store in ${join(at.cwd, 'data')} or ${join(at.checkout, 'data')}, and the command makes none: start the server once (npm start) to create it, or set PORTCULLIS_DATA_DIR (or DATABASE_URL) to the store the server uses\n  code: config_invalid (change PORTCULLIS_DATA_DIR)\n`,
    ]);
    expect(existsSync(join(at.cwd, 'data'))).toBe(false);
    expect(existsSync(join(at.checkout, 'data'))).toBe(false);
  });

  it("is its checkout's when run from another folder (an npm link'ed command)", async () => {
    const at = places();
    await storeIn(join(at.checkout, 'data'), 'checkout-bot');
    const outcome = await runPortcullisHere(['agent', 'list'], {}, at);
    expect([outcome.code, outcome.stderr]).toEqual([0, '']);
    expect(outcome.stdout).toContain('checkout-bot');
    expect(existsSync(join(at.cwd, 'data'))).toBe(false);
  });

  it('is the ./data of the folder it runs in first, when that holds one', async () => {
    const at = places();
    await storeIn(join(at.checkout, 'data'), 'checkout-bot');
    await storeIn(join(at.cwd, 'data'), 'here-bot');
    const outcome = await runPortcullisHere(['agent', 'list'], {}, at);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('here-bot');
    expect(outcome.stdout).not.toContain('checkout-bot');
  });

  it('is the one PORTCULLIS_DATA_DIR names, made on first use', async () => {
    const at = places();
    const named = join(at.cwd, 'named');
    const outcome = await runPortcullisHere(['agent', 'list'], { PORTCULLIS_DATA_DIR: named }, at);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toMatch(/^first start: admin token/);
    expect(existsSync(join(named, 'portcullis.sqlite'))).toBe(true);
  });
});
