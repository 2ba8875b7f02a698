/**
 * Names that belong to someone: a compiled provider's id, the remote kind's
 * own id, a curated server's default name. A connection of anything else
 * never takes one: a given name is refused naming the field, a derived one
 * (a pasted key, the server's host) gives way to the next.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CatalogSet,
  generatedProviderFiles,
} from '../../../../runtime/core/catalog/catalog-set.ts';
import { generatedRemoteFiles } from '../../../../runtime/core/catalog/curated-remotes.ts';
import {
  assertNameFree,
  firstFreeName,
  type NameClaimant,
  reservedOwner,
} from '../../../../runtime/core/governance/reserved-names.ts';
import { REMOTE_MCP_PROVIDER } from '../../../../runtime/core/model/remote.ts';
import { nameFromHost } from '../../../../runtime/core/operator/remote-connections.ts';
import { GENERATED } from '../../../support/gateway.ts';
import { reasonOf } from '../../../support/reason.ts';

let catalogs: CatalogSet;
beforeAll(async () => {
  catalogs = await CatalogSet.load(
    generatedProviderFiles(GENERATED),
    generatedRemoteFiles(GENERATED),
  );
});

const remoteAt = (url: string): NameClaimant => ({ provider: REMOTE_MCP_PROVIDER, url });
const GITHUB = 'https://api.githubcopilot.com/mcp';
const ELSEWHERE = 'https://mcp.example.com/mcp';

const cases: Array<[string, { given: { name: string; claimant: NameClaimant }; free: boolean }]> = [
  [
    "a provider's id, for its own connection",
    { given: { name: 'coolify', claimant: { provider: 'coolify' } }, free: true },
  ],
  [
    "a provider's id, for another provider's connection",
    { given: { name: 'coolify', claimant: { provider: 'unikraft' } }, free: false },
  ],
  [
    "a provider's id, for a remote connection",
    { given: { name: 'coolify', claimant: remoteAt(ELSEWHERE) }, free: false },
  ],
  [
    'the remote kind, for a remote connection',
    { given: { name: REMOTE_MCP_PROVIDER, claimant: remoteAt(ELSEWHERE) }, free: false },
  ],
  [
    'the remote kind, for a native connection',
    { given: { name: REMOTE_MCP_PROVIDER, claimant: { provider: 'coolify' } }, free: false },
  ],
  [
    "a curated server's name, for a connection to that server",
    { given: { name: 'github', claimant: remoteAt(GITHUB) }, free: true },
  ],
  [
    "a curated server's name, for a connection elsewhere",
    { given: { name: 'github', claimant: remoteAt(ELSEWHERE) }, free: false },
  ],
  [
    "a curated server's name, for a native connection",
    { given: { name: 'github', claimant: { provider: 'unikraft' } }, free: false },
  ],
  ['any other name', { given: { name: 'bank', claimant: remoteAt(ELSEWHERE) }, free: true }],
];

describe('reservedOwner', () => {
  it.each(cases)('%s', (_, { given, free }) => {
    expect(reservedOwner(catalogs, given.name, given.claimant) === undefined).toBe(free);
  });

  it('refuses a given name that is taken, naming the field', () => {
    expect(
      reasonOf(() => assertNameFree(catalogs, 'remote-mcp', remoteAt(ELSEWHERE), 'name')),
    ).toEqual({ code: 'invalid_input', field: 'name' });
  });
});

describe('a name derived from a host', () => {
  it.each([
    ['https://mcp.remote-mcp.com/mcp', 'remote-mcp'],
    ['https://mcp.coolify.io/mcp', 'coolify'],
    ['https://mcp.github.example/mcp', 'github'],
  ])('%s would be %s, which belongs to someone else: the next source is used', (url, host) => {
    const derived = nameFromHost(new URL(url));
    expect(derived).toBe(host);
    expect(reservedOwner(catalogs, derived, remoteAt(url))).toBeDefined();
    expect(firstFreeName(catalogs, remoteAt(url), [derived])).toBeUndefined();
    expect(firstFreeName(catalogs, remoteAt(url), [derived, 'next'])).toBe('next');
  });

  it("a curated server's own host keeps its default name", () => {
    expect(firstFreeName(catalogs, remoteAt(GITHUB), ['github'])).toBe('github');
  });
});
