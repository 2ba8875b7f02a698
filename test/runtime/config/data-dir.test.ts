import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../runtime/config/config-error.ts';
import { dataDirProblem, ensureDataDir } from '../../../runtime/config/data-dir.ts';

const scratch = mkdtempSync(join(tmpdir(), 'portcullis-data-dir-'));
const file = join(scratch, 'a-file');
writeFileSync(file, 'not a folder');

function refusal(dir: string): ConfigError {
  try {
    ensureDataDir(dir);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected ${dir} to be refused`);
}

describe('the data folder', () => {
  it('is created owner-only when missing, each level made', () => {
    const dir = join(scratch, 'new', 'data');
    ensureDataDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(scratch, 'new')).mode & 0o777).toBe(0o700);
  });

  it('is checked without being made', () => {
    const dir = join(scratch, 'checked', 'data');
    expect(dataDirProblem(dir)).toBeUndefined();
    expect(existsSync(join(scratch, 'checked'))).toBe(false);
    expect(dataDirProblem(file)).toMatch(/is \(or is inside\) a file/);
  });

  // The message is the requirement: it names the variable and says what is wrong with the path.
  it.each<[string, { given: string; want: string }]>([
    [
      'a file',
      {
        given: file,
        want: `PORTCULLIS_DATA_DIR: "${file}" is (or is inside) a file, not a folder; expected the path of a folder the gateway may write`,
      },
    ],
    [
      'a path inside a file',
      {
        given: join(file, 'data'),
        want: `PORTCULLIS_DATA_DIR: "${join(file, 'data')}" is (or is inside) a file, not a folder; expected the path of a folder the gateway may write`,
      },
    ],
    [
      // Even root may not create folders in sysfs.
      'a folder no one may create',
      {
        given: '/sys/portcullis-data',
        want: 'PORTCULLIS_DATA_DIR: "/sys/portcullis-data" cannot be created or written: permission denied; expected the path of a folder the gateway may write',
      },
    ],
    [
      // A recursive mkdir loops there for ever; even root may not make folders in /proc.
      'a folder under /proc',
      {
        given: '/proc/nope/data',
        want: 'PORTCULLIS_DATA_DIR: "/proc/nope/data" cannot be created: the folder it would go in takes no new folders; expected the path of a folder the gateway may write',
      },
    ],
  ])('refuses %s, naming the variable', (_name, { given, want }) => {
    const error = refusal(given);
    expect([error.code, error.variable, error.message]).toEqual([
      'config_invalid',
      'PORTCULLIS_DATA_DIR',
      want,
    ]);
  });
});
