/** The real pinned documents, compiled in CI from the byte-exact mirror. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../generators/catalog/format.ts';
import type { GeneratedTree } from '../../generators/generate.ts';
import { ajvFailures } from '../support/fixtures.ts';
import { generateFromMirror } from '../support/pinned.ts';

let tree: GeneratedTree;
const catalog = (id: string): Catalog => tree.catalogs.find((c) => c.provider.id === id)!;
const action = (id: string, name: string) => catalog(id).actions.find((a) => a.name === name)!;

beforeAll(async () => {
  tree = await generateFromMirror();
});

describe.each([
  ['unikraft', { platform: 74, sandbox: 16 }],
  ['daytona', { api: 230, toolbox: 92 }],
  ['coolify', { api: 275 }],
])('%s', (id, operations) => {
  it('accounts for every operation: advertised, or inventoried with a reason', () => {
    const c = catalog(id);
    expect(Object.fromEntries(c.sources.map((s) => [s.document, s.operations]))).toEqual(
      operations,
    );
    for (const source of c.sources) {
      const advertised = c.actions.filter((a) => a.document === source.document).length;
      const inventoried = c.inventory.filter((e) => e.document === source.document).length;
      expect(advertised + inventoried).toBe(source.operations);
    }
  });

  it('emits input schemas that all compile in ajv strict mode', () => {
    const c = catalog(id);
    expect(ajvFailures(c.actions, c.annotationFormats)).toEqual([]);
  });

  it('states every annotation explicitly and agrees with the classification', () => {
    for (const a of catalog(id).actions) {
      expect(a.annotations.readOnlyHint).toBe(a.classification === 'read');
      expect(a.annotations.destructiveHint).toBe(a.classification === 'destructive');
      expect(typeof a.annotations.idempotentHint).toBe('boolean');
      expect(a.annotations.openWorldHint).toBe(true);
    }
  });
});

describe('unikraft', () => {
  it('sends the credential only to the five published metros', () => {
    expect(catalog('unikraft').hosts).toEqual({
      fixed: [
        'api.dal.unikraft.cloud',
        'api.fra.unikraft.cloud',
        'api.sfo.unikraft.cloud',
        'api.sin.unikraft.cloud',
        'api.was.unikraft.cloud',
      ],
      settings: [],
    });
  });

  it('keeps the JSON bodies of the 22 platform GET and DELETE operations that have one', () => {
    const withBody = catalog('unikraft').actions.filter(
      (a) =>
        a.document === 'platform' &&
        ['GET', 'DELETE'].includes(a.request.method) &&
        a.request.body !== null,
    );
    expect(withBody).toHaveLength(22);
    expect(action('unikraft', 'unikraft_get_instances').request.body).toEqual({
      required: true,
      contentType: 'application/json',
      kind: 'json',
      chosenBecause: 'the only media type the document offers',
    });
  });

  it('classifies sandbox commands as destructive and waits as reads, with the 408 hint', () => {
    expect(action('unikraft', 'unikraft_sandbox_run_command').classification).toBe('destructive');
    expect(action('unikraft', 'unikraft_sandbox_write_command_stdin').classification).toBe(
      'destructive',
    );
    const wait = action('unikraft', 'unikraft_sandbox_wait_for_command_with_timeout');
    expect([wait.classification, wait.classifiedBy.rule]).toEqual(['read', 'definition']);
    expect(wait.hints).toEqual({ stillRunningStatuses: [408] });
  });

  it('takes an optional metro on every action, and the instance on sandbox actions', () => {
    for (const a of catalog('unikraft').actions) {
      const server = (
        a.inputSchema.properties as Record<
          string,
          { properties: Record<string, unknown>; required?: string[] }
        >
      ).server!;
      expect(server.properties.metro).toMatchObject({ enum: ['fra', 'dal', 'sin', 'was', 'sfo'] });
      expect(server.required ?? []).toEqual(a.document === 'sandbox' ? ['instance'] : []);
    }
  });

  it('verifies a credential with the quotas read', () => {
    const manifest = JSON.parse(tree.files.get('unikraft/manifest.json')!);
    expect(manifest.connection.verify).toEqual({ action: 'unikraft_get_user' });
    expect(action('unikraft', 'unikraft_get_user').request).toMatchObject({
      method: 'GET',
      path: '/v1/users/quotas',
    });
  });
});

describe('daytona and coolify', () => {
  it('send the toolbox credential always, and coolify only to the host its operator sets', () => {
    expect(
      catalog('daytona')
        .actions.filter((a) => a.document === 'toolbox')
        .every((a) => a.request.credential),
    ).toBe(true);
    expect(catalog('coolify').hosts).toEqual({ fixed: [], settings: ['host'] });
    const coolifyServer = action('coolify', 'coolify_version').inputSchema.properties as Record<
      string,
      unknown
    >;
    expect(coolifyServer.server).toBeUndefined();
  });
});

describe('the generated tree', () => {
  it('is byte-identical on a second run', async () => {
    const again = await generateFromMirror();
    expect([...again.files.keys()]).toEqual([...tree.files.keys()]);
    for (const [path, contents] of tree.files) expect(again.files.get(path), path).toBe(contents);
  });

  it('starts every file with a banner naming the generator, the sources with their sha256 and the command', () => {
    for (const [path, contents] of tree.files) {
      const head = contents.slice(0, 1200);
      expect(head, path).toMatch(/Generated by generators\/cli\.ts/);
      expect(head, path).toMatch(/npm run generate/);
      if (path.includes('/')) expect(head, path).toMatch(/sha256 [0-9a-f]{64}/);
      expect(contents.includes('\r'), path).toBe(false);
    }
  });
});
