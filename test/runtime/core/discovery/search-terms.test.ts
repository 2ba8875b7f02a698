import { describe, expect, it } from 'vitest';
import {
  QUERY_WORDS_MAX,
  queryTerms,
  RELATED_WEIGHT,
  stem,
  wordsOf,
} from '../../../../runtime/core/discovery/search-terms.ts';

describe('wordsOf', () => {
  it.each([
    ['snake_case', 'coolify_list_applications', ['coolify', 'list', 'applications']],
    ['camelCase', 'sandboxIdOrName', ['sandbox', 'id', 'or', 'name']],
    ['an acronym before a word', 'XDaytonaOrganizationID', ['x', 'daytona', 'organization', 'id']],
    ['a path', '/v1/instances/{uuid}/stop', ['v1', 'instances', 'uuid', 'stop']],
    ['a double underscore', 'github__create_issue', ['github', 'create', 'issue']],
  ])('splits %s', (_, given, want) => {
    expect(wordsOf(given)).toEqual(want);
  });
});

describe('stem', () => {
  it.each([
    ['instances', 'instanc'],
    ['instance', 'instanc'],
    ['policies', 'policy'],
    ['boxes', 'box'],
    ['status', 'status'],
    ['listing', 'list'],
    ['stopped', 'stop'],
    ['running', 'run'],
    ['created', 'creat'],
    ['create', 'creat'],
    ['creating', 'creat'],
    ['logs', 'log'],
    ['dns', 'dns'],
  ])('%s → %s', (word, want) => {
    expect(stem(word)).toBe(want);
  });
});

describe('queryTerms', () => {
  const terms = (query: string) =>
    Object.fromEntries(queryTerms(query).map((t) => [t.term, t.boost]));

  it('drops filler and brings related words at a lower weight', () => {
    const found = terms('please remove my sandbox');
    expect(found).toMatchObject({ remov: 1, sandbox: 1, delet: RELATED_WEIGHT });
    expect(found).not.toHaveProperty('pleas');
    expect(found).not.toHaveProperty('my');
  });

  it('counts a short form as the word itself', () => {
    expect(terms('env of an app')).toMatchObject({
      env: 1,
      environment: 1,
      app: 1,
      application: 1,
    });
  });

  it('reads two words a person writes for one as that one', () => {
    expect(terms('back up the database')).toMatchObject({ backup: 1 });
    expect(terms('back up the database')).not.toHaveProperty('up');
  });

  it('brings no related words for a word describing a state', () => {
    expect(terms('deployments that are running')).not.toHaveProperty('execut');
    expect(terms('run a command')).toHaveProperty('execut', RELATED_WEIGHT);
  });

  it('asks for a listing when the query says all, every or which', () => {
    expect(terms('all sandboxes')).toMatchObject({ list: 1, sandbox: 1 });
  });

  it('reads at most the first 32 words of a query', () => {
    const long = Array.from({ length: 5_000 }, (_, i) => `word${i}`).join(' ');
    expect(queryTerms(long)).toHaveLength(QUERY_WORDS_MAX);
  });

  it('keeps the words of a query that is only filler', () => {
    expect(terms('all')).toEqual({ all: 1, list: 1 });
    expect(queryTerms('')).toEqual([]);
  });
});
