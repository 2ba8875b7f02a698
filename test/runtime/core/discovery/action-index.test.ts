import { describe, expect, it } from 'vitest';
import {
  ActionIndex,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  searchActions,
} from '../../../../runtime/core/discovery/action-index.ts';
import {
  type DiscoverableAction,
  discoverableAction,
  summaryOf,
} from '../../../../runtime/core/discovery/discoverable-action.ts';
import {
  compiledActions,
  compiledCatalog,
  curatedRemoteActions,
} from '../../../support/discovery.ts';

const unikraft = compiledActions('unikraft');
const daytona = compiledActions('daytona');
const remote = curatedRemoteActions();
const index = new ActionIndex([...unikraft, ...daytona, ...remote]);
const names = (results: Array<{ action: string }>) => results.map((result) => result.action);

describe('discoverableAction', () => {
  const action = compiledCatalog('unikraft').actions.find(
    (a) => a.name === 'unikraft_stop_instance_by_uuid',
  )!;

  it('names the tool as direct mode does: as compiled on a connection named after its provider', () => {
    const found = discoverableAction({ name: 'unikraft', provider: 'unikraft' }, action);
    expect(found).toMatchObject({
      action: 'unikraft_stop_instance_by_uuid',
      connection: 'unikraft',
      class: 'destructive',
      title: 'Stop Instance by UUID',
      path: '/v1/instances/{uuid}/stop',
    });
  });

  it('prefixes the connection name on any other connection', () => {
    const found = discoverableAction({ name: 'edge', provider: 'unikraft' }, action);
    expect(found.action).toBe('edge__unikraft_stop_instance_by_uuid');
    expect(found.connection).toBe('edge');
  });

  it.each([
    [
      'the title repeated, then the text',
      { title: 'Add Users', text: 'Add Users\n\nCreate new user accounts. More here.' },
      { summary: 'Create new user accounts.', rest: 'More here.' },
    ],
    [
      'a description alone',
      { title: 'x', text: 'Lists things' },
      { summary: 'Lists things', rest: '' },
    ],
    ['no description', { title: 'Get me', text: '' }, { summary: 'Get me', rest: '' }],
  ])('summary of %s', (_, given, want) => {
    expect(summaryOf(given.title, given.text)).toEqual(want);
  });
});

describe('searchActions', () => {
  it('finds the action asked for in other words, best first, with what results carry', () => {
    const [first] = searchActions(index, { query: 'shut down a unikraft instance' });
    expect(first).toEqual({
      action: expect.stringMatching(/^unikraft_stop_instance/),
      connection: 'unikraft',
      class: 'destructive',
      title: expect.any(String),
      summary: expect.any(String),
      score: expect.any(Number),
    });
  });

  it.each([
    ['a synonym (remove → delete)', 'remove a sandbox', 'daytona_delete_sandbox'],
    ['a prefix', 'sandb snapsh', 'daytona_create_sandbox_snapshot'],
    ['a typo', 'screnshot', 'daytona_toolbox_take_screenshot'],
    ['camelCase and path words', 'ssh access', 'daytona_create_ssh_access'],
    ['a remote tool', 'merge a pull request', 'github__merge_pull_request'],
  ])('matches %s', (_, query, want) => {
    expect(names(searchActions(index, { query, limit: 5 }))).toContain(want);
  });

  it('returns 8 results unless told, and at most 50', () => {
    expect(searchActions(index, { query: 'sandbox' })).toHaveLength(SEARCH_LIMIT_DEFAULT);
    expect(searchActions(index, { query: 'sandbox', limit: 3 })).toHaveLength(3);
    expect(searchActions(index, { query: 'sandbox', limit: SEARCH_LIMIT_MAX })).toHaveLength(50);
    for (const limit of [0, 51, 2.5])
      expect(() => searchActions(index, { query: 'sandbox', limit })).toThrow(TypeError);
  });

  it('keeps to the connection and the class asked for', () => {
    const byConnection = searchActions(index, { query: 'create', connection: 'github', limit: 50 });
    expect(byConnection.length).toBeGreaterThan(0);
    expect(byConnection.every((result) => result.connection === 'github')).toBe(true);
    const reads = searchActions(index, { query: 'sandbox', class: 'read', limit: 50 });
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((result) => result.class === 'read')).toBe(true);
  });

  it('never finds an action outside the index, and `allowed` only narrows it', () => {
    const onlyUnikraft = new ActionIndex(unikraft);
    expect(names(searchActions(onlyUnikraft, { query: 'daytona sandbox', limit: 50 }))).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^daytona_/)]),
    );
    const reads = (action: DiscoverableAction) => action.class === 'read';
    const narrowed = searchActions(index, { query: 'delete sandbox', allowed: reads, limit: 50 });
    expect(narrowed.every((result) => result.class === 'read')).toBe(true);
  });

  it('finds nothing for an empty query or words no action has', () => {
    expect(searchActions(index, { query: '' })).toEqual([]);
    expect(searchActions(index, { query: '   ' })).toEqual([]);
    expect(searchActions(index, { query: 'zzqx wvvk' })).toEqual([]);
  });

  it('indexes only the first 4,000 characters of a description', () => {
    const long = (tail: string): DiscoverableAction => ({
      action: 'remote__long',
      connection: 'remote',
      class: 'read',
      title: 'Long',
      summary: 'A long one.',
      description: `${'filler '.repeat(600)}${tail}`,
      inputSchema: { type: 'object' },
    });
    const capped = new ActionIndex([long('quokka')]);
    expect(searchActions(capped, { query: 'quokka' })).toEqual([]);
    const short = new ActionIndex([{ ...long('quokka'), description: 'a quokka' }]);
    expect(searchActions(short, { query: 'quokka' })).toHaveLength(1);
  });

  it('puts a deprecated action after the one that replaces it', () => {
    const found = names(
      searchActions(index, { query: 'daytona clone a git repository', limit: 10 }),
    );
    expect(found.indexOf('daytona_toolbox_clone_repository')).toBeLessThan(
      found.indexOf('daytona_git_clone_repository_deprecated'),
    );
  });

  it('prefers the service a query names', () => {
    const [first] = searchActions(index, { query: 'create an issue in linear' });
    expect(first?.connection).toBe('linear');
  });

  it('answers the same search the same way', () => {
    const again = new ActionIndex([...remote].reverse());
    const query = { query: 'list issues', limit: 20 };
    expect(names(searchActions(again, query))).toEqual(
      names(searchActions(new ActionIndex(remote), query)),
    );
  });
});
