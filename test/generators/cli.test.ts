/** The maintainer's commands, run as a maintainer runs them (a child process per command). */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareTrees, readTree } from '../../generators/cli/generated-tree.ts';
import { MIRROR, ROOT } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';

/** A copy of the mirror with one byte of the Unikraft platform document flipped. */
function tamperedMirror(): { mirror: string; actual: string } {
  const mirror = mkdtempSync(join(tmpdir(), 'portcullis-mirror-'));
  cpSync(MIRROR, mirror, { recursive: true });
  const file = join(mirror, 'unikraft', 'platform.yaml');
  const bytes = readFileSync(file);
  bytes[1000] = bytes[1000]! ^ 0x01;
  writeFileSync(file, bytes);
  return { mirror, actual: createHash('sha256').update(bytes).digest('hex') };
}

const PLATFORM_SHA256 = '8f4fb6c938cda9eec619f1f6d451c7db119940175b744fae1a49f770b3f65e3e';

describe('npm run generate -- --check', () => {
  it('passes when generated/ matches the pins and the compiler', async () => {
    const { code, stdout } = await runCli(['generate', '--check']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/generated\/ is up to date/);
  });

  it('fails naming the pin, the expected and the actual hash when one byte of a document changes', async () => {
    const { mirror, actual } = tamperedMirror();
    const { code, stderr } = await runCli(['generate', '--check'], {
      PORTCULLIS_SPEC_MIRROR: mirror,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/error\[pin_hash_mismatch\]/);
    expect(stderr).toContain('unikraft/platform');
    expect(stderr).toContain(PLATFORM_SHA256);
    expect(stderr).toContain(actual);
  });
});

describe('npm run generate', () => {
  it('writes nothing when a pin does not match', async () => {
    const before = await readTree(join(ROOT, 'generated'));
    const { mirror } = tamperedMirror();
    const { code } = await runCli(['generate'], { PORTCULLIS_SPEC_MIRROR: mirror });
    expect(code).toBe(2);
    expect(compareTrees(before, await readTree(join(ROOT, 'generated')))).toEqual({
      missing: [],
      different: [],
      extra: [],
    });
    expect(readdirSync(ROOT).filter((f) => f.startsWith('generated.'))).toEqual([]);
  });

  it('says which pin it could not find and where it looked', async () => {
    const { code, stderr } = await runCli(['generate', '--check'], {
      PORTCULLIS_SPEC_MIRROR: mkdtempSync(join(tmpdir(), 'empty-')),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/error\[pin_unresolvable\] specs\/coolify\/pins.json #\/api/);
    expect(stderr).toMatch(/download: turned off/);
  });
});

describe.concurrent('bad invocations', () => {
  it.each([
    ['an unknown flag', ['generate', '--bogus'], 'usage'],
    ['an unknown command', ['regenerate'], 'usage'],
    ['an unknown provider', ['pin', 'nope', 'api', '--commit', '0'.repeat(40)], 'unknown_provider'],
    [
      'an unknown document',
      ['pin', 'unikraft', 'nope', '--commit', '0'.repeat(40)],
      'unknown_document',
    ],
    ['a short commit', ['pin', 'unikraft', 'platform', '--commit', 'abc123'], 'usage'],
  ])('%s is one clear error and exit 2', async (_, args, code) => {
    const outcome = await runCli(args);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(new RegExp(`^error\\[${code}\\]`));
    expect(outcome.stderr).toMatch(/\n {2}fix: /);
  });
});

describe('npm run diff', () => {
  it('shows the contract diff of the Unikraft platform upgrade from the 2024 release to the pin', async () => {
    const { code, stdout } = await runCli([
      'diff',
      'unikraft',
      'platform',
      '--from',
      '3ad398956ba262a9cae627a8baad93eed4c108bc',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}added \(53\):$/m);
    expect(stdout).toMatch(/^ {4}unikraft_get_user$/m);
    expect(stdout).toMatch(/^ {2}removed \(19\):$/m);
    expect(stdout).toMatch(/^ {4}unikraft_get_quotas$/m);
    expect(stdout).toMatch(/^ {2}schema changed \(21\):$/m);
  });
});

describe('compareTrees', () => {
  it('names missing, different and stale files', () => {
    const expected = new Map([
      ['a.json', '1'],
      ['b.json', '2'],
    ]);
    const actual = new Map([
      ['b.json', '3'],
      ['old.json', '4'],
    ]);
    expect(compareTrees(expected, actual)).toEqual({
      missing: ['a.json'],
      different: ['b.json'],
      extra: ['old.json'],
    });
  });
});
