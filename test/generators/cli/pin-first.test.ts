/** `npm run pin` for a provider with no pins file yet: it makes the file, from where the document lives upstream. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MIRROR, ROOT } from '../../support/fixtures.ts';
import { runCli } from '../../support/run-cli.ts';
import { scratchRepo } from '../../support/scratch-repo.ts';

const COOLIFY = JSON.parse(readFileSync(join(ROOT, 'specs', 'coolify', 'pins.json'), 'utf8')).api;

let repo: string;
const pinsFile = () => join(repo, 'specs', 'coolify', 'pins.json');

beforeEach(() => {
  repo = scratchRepo();
  rmSync(pinsFile());
});

describe('npm run pin without a pins file', () => {
  it('creates the pins file from --repo, --path and --commit, with the bytes of a local copy', async () => {
    const { code, stdout, stderr } = await runCli(
      [
        'pin',
        'coolify',
        'api',
        '--commit',
        COOLIFY.commit,
        '--repo',
        COOLIFY.repo,
        '--path',
        COOLIFY.path,
        '--file',
        join(MIRROR, 'coolify', 'openapi.yaml'),
      ],
      {},
      repo,
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`pinned coolify/api at ${COOLIFY.commit}`);
    expect(JSON.parse(readFileSync(pinsFile(), 'utf8'))).toEqual({ api: COOLIFY });
  });

  it('asks for --repo and --path rather than inventing them, and writes nothing', async () => {
    const { code, stderr } = await runCli(
      ['pin', 'coolify', 'api', '--commit', COOLIFY.commit],
      {},
      repo,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error\[usage\]: .*has no pin yet/);
    expect(stderr).toContain('--repo <owner/name> --path <path/in/repo>');
    expect(existsSync(pinsFile())).toBe(false);
  });

  it('refuses a document the definition does not have', async () => {
    const { code, stderr } = await runCli(
      ['pin', 'coolify', 'nope', '--commit', COOLIFY.commit, '--repo', 'a/b', '--path', 'x.yaml'],
      {},
      repo,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error\[unknown_document\] specs\/coolify\/provider\.ts #\/documents/);
    expect(existsSync(pinsFile())).toBe(false);
  });
});
