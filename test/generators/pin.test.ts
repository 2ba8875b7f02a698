/** `npm run pin`, end to end, in a scratch copy of the repository so the real one is never touched. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { compareTrees, readTree } from '../../generators/cli/generated-tree.ts';
import { MIRROR } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchRepo } from '../support/scratch-repo.ts';

let repo: string;

beforeEach(() => {
  repo = scratchRepo();
});

function pin(args: string[]) {
  return runCli(['pin', ...args], { PORTCULLIS_SPEC_CACHE: cache() }, repo);
}

const cache = () => join(repo, '.cache', 'specs');
/** The files in the scratch repository's spec cache (none when it was never made). */
const cached = () => (existsSync(cache()) ? readdirSync(cache()) : []);

describe('npm run pin', () => {
  it('records the new hash, regenerates, and prints the contract diff', async () => {
    const edited = join(repo, 'sandbox.yaml');
    const original = readFileSync(join(MIRROR, 'unikraft', 'sandbox.yaml'), 'utf8');
    const health =
      '  /health:\n    get:\n      operationId: Health\n      responses:\n        default:\n          description: ok\n';
    writeFileSync(edited, original.replace('\npaths:\n', `\npaths:\n${health}`));
    const commit = 'c'.repeat(40);

    const { code, stdout } = await pin([
      'unikraft',
      'sandbox',
      '--commit',
      commit,
      '--file',
      edited,
    ]);

    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}added \(1\):\n {4}unikraft_sandbox_health$/m);
    const pins = JSON.parse(readFileSync(join(repo, 'specs', 'unikraft', 'pins.json'), 'utf8'));
    expect(pins.sandbox.commit).toBe(commit);
    expect(pins.sandbox.sha256).not.toBe(
      'af5b738a14b97a6b56d74602c9850d52b84cc57e8f77dc432e17d2f4af1b0dd2',
    );
    const catalog = JSON.parse(
      readFileSync(join(repo, 'generated', 'unikraft', 'catalog.json'), 'utf8'),
    );
    expect(catalog.actions.map((a: { name: string }) => a.name)).toContain(
      'unikraft_sandbox_health',
    );
    expect(
      catalog.sources.find((s: { document: string }) => s.document === 'sandbox'),
    ).toMatchObject({ commit, operations: 17 });
  });

  it('writes nothing when the new document breaks the definition', async () => {
    const before = await readTree(join(repo, 'generated'));
    const pinsBefore = readFileSync(join(repo, 'specs', 'unikraft', 'pins.json'), 'utf8');

    // The 2024 platform release has no GetUser operation, which the definition verifies credentials with.
    const { code, stderr } = await pin([
      'unikraft',
      'platform',
      '--commit',
      '3ad398956ba262a9cae627a8baad93eed4c108bc',
    ]);

    expect(code).toBe(2);
    expect(stderr).toMatch(/^error\[unknown_operation\] specs\/unikraft\/provider\.ts #\/verify/);
    expect(cached()).toEqual([]);
    expect(readFileSync(join(repo, 'specs', 'unikraft', 'pins.json'), 'utf8')).toBe(pinsBefore);
    expect(compareTrees(before, await readTree(join(repo, 'generated')))).toEqual({
      missing: [],
      different: [],
      extra: [],
    });
  });

  it('refuses a document with an operation that does not compile, and caches nothing', async () => {
    const before = await readTree(join(repo, 'generated'));
    const edited = join(repo, 'sandbox.yaml');
    const original = readFileSync(join(MIRROR, 'unikraft', 'sandbox.yaml'), 'utf8');
    const dangling =
      "  /certificates:\n    post:\n      operationId: CreateCertificate\n      requestBody:\n        content:\n          application/json:\n            schema: { $ref: '#/components/schemas/Missing' }\n      responses:\n        default:\n          description: ok\n";
    writeFileSync(edited, original.replace('\npaths:\n', `\npaths:\n${dangling}`));

    const { code, stderr } = await pin([
      'unikraft',
      'sandbox',
      '--commit',
      'd'.repeat(40),
      '--file',
      edited,
    ]);

    expect(code).toBe(2);
    expect(stderr).toContain(
      'error[operation_not_compiled] unikraft-cloud/openapi@dddddddddddd:plugins/sandbox.yaml #/paths/~1certificates/post/requestBody/content/application~1json/schema',
    );
    expect(stderr).toContain('"sandbox:CreateCertificate": "<why it is left out>"');
    expect(cached()).toEqual([]);
    expect(compareTrees(before, await readTree(join(repo, 'generated')))).toEqual({
      missing: [],
      different: [],
      extra: [],
    });
  });

  it('caches the new bytes once the pin succeeds', async () => {
    const edited = join(repo, 'sandbox.yaml');
    const original = readFileSync(join(MIRROR, 'unikraft', 'sandbox.yaml'), 'utf8');
    writeFileSync(
      edited,
      original.replace(
        '\npaths:\n',
        '\npaths:\n  /ping:\n    get:\n      operationId: Ping\n      responses:\n        default:\n          description: ok\n',
      ),
    );
    const { code } = await pin([
      'unikraft',
      'sandbox',
      '--commit',
      'e'.repeat(40),
      '--file',
      edited,
    ]);
    expect(code).toBe(0);
    const pins = JSON.parse(readFileSync(join(repo, 'specs', 'unikraft', 'pins.json'), 'utf8'));
    expect(cached()).toEqual([pins.sandbox.sha256]);
  });
});
