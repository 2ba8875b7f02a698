/**
 * The authorization server's commands as an operator types them: members
 * added with a password from an environment variable (never argv), listed,
 * given a new password, removed; consents listed and revoked; the signing key
 * rotated; a member's console role given at once or changed, the last
 * owner kept. Refusals name the flag to change, and no password reaches the
 * output or the audit log.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runPortcullisHere } from '../../../support/run-cli.ts';

const env = {
  PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-members-')),
  PW: 'canary-member-password-77',
  SHORT: 'tiny-pw-9',
};

it('adds, lists, re-passwords and removes members; lists consents and rotates the key', async () => {
  const run = (...args: string[]) => runPortcullisHere(args, env);
  const added = await run('member', 'add', 'ada', '--password-env', 'PW');
  expect([added.code, added.stdout.trim().split('\n').at(-1)]).toEqual([
    0,
    'added member ada (member)',
  ]);
  const missing = await run('member', 'add', 'bob');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('--password-env');
  const weak = await run('member', 'password', 'ada', '--password-env', 'SHORT');
  expect(weak.code).toBe(1);
  expect(weak.stderr).toContain('--password-env: expected at least 12 characters');
  const unknown = await run('member', 'remove', 'adda');
  expect(unknown.stderr).toContain('did you mean ada?');
  const listed = await run('member', 'list', '--json');
  expect(JSON.parse(listed.stdout).map((m: { name: string }) => m.name)).toEqual(['ada']);
  expect((await run('oauth', 'consents')).stdout).toContain('(none)');
  const rotated = await run('oauth', 'rotate-key', '--json');
  expect(JSON.parse(rotated.stdout).kid).toMatch(/^[\w-]{43}$/);
  expect((await run('member', 'remove', 'ada')).code).toBe(0);
  const audit = await run('audit', '--json', '--limit', '50');
  expect(audit.stdout).toContain('member.add');
  expect(audit.stdout).toContain('member.remove');
  for (const outcome of [added, missing, weak, listed, rotated, audit]) {
    expect(outcome.stdout + outcome.stderr).not.toContain(env.PW);
    expect(outcome.stdout + outcome.stderr).not.toContain(env.SHORT);
  }
});

it('gives members a console role, changes it, and keeps the last owner', async () => {
  const run = (...args: string[]) => runPortcullisHere(args, env);
  const owner = await run('member', 'add', 'lin', '--password-env', 'PW', '--role', 'owner');
  expect([owner.code, owner.stdout.trim().split('\n').at(-1)]).toEqual([
    0,
    'added member lin (owner)',
  ]);
  const typo = await run('member', 'add', 'max', '--password-env', 'PW', '--role', 'owners');
  expect(typo.code).toBe(1);
  expect(typo.stderr).toContain('--role: expected one of');
  expect(typo.stderr).toContain('did you mean owner?');
  expect((await run('member', 'add', 'max', '--password-env', 'PW')).code).toBe(0);
  const promoted = await run('member', 'role', 'max', 'operator');
  expect([promoted.code, promoted.stdout.trim()]).toEqual([0, 'max is now operator']);
  const demoted = await run('member', 'role', 'lin', 'viewer');
  expect(demoted.code).toBe(1);
  expect(demoted.stderr).toContain("lin is the workspace's only owner");
  expect(demoted.stderr).toContain('[conflict]');
  const removed = await run('member', 'remove', 'lin');
  expect([removed.code, removed.stderr]).toEqual([1, expect.stringContaining('only owner')]);
  const listed = JSON.parse((await run('member', 'list', '--json')).stdout) as Array<{
    name: string;
    role: string;
  }>;
  expect(Object.fromEntries(listed.map((m) => [m.name, m.role]))).toMatchObject({
    lin: 'owner',
    max: 'operator',
  });
  const audit = await run('audit', '--json', '--action', 'member.role');
  expect(audit.stdout).toContain(':operator');
});
