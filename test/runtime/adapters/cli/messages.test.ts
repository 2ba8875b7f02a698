/**
 * What the `portcullis` command says to a person, row by row: the message is
 * the requirement here, so these assert its text, its stream and the exit
 * code (0 done or help on stdout, 1 refused, 2 a usage error). Each names the
 * word, flag or variable to change and the nearest valid one where it can.
 * The command runs in this process, against a store of its own and a real
 * loopback upstream standing in for Unikraft.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../../../runtime/adapters/cli/commands.ts';
import { runPortcullisHere } from '../../../support/run-cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'portcullis-cli-messages-'));
const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a folder');
let upstream: Server;
let env: Record<string, string>;

beforeAll(async () => {
  upstream = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"status":"success"}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  env = {
    PORTCULLIS_DATA_DIR: join(scratch, 'data'),
    PORTCULLIS_DEV_UPSTREAMS: `unikraft=http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    TOKEN: 'a-token',
    PW: 'correct horse battery staple',
  };
  for (const args of [
    ['connect', 'unikraft', '--token-env', 'TOKEN'],
    ['agent', 'create', 'deploy-bot'],
    ['member', 'add', 'ada', '--password-env', 'PW'],
  ]) {
    const { code, stderr } = await runPortcullisHere(args, env);
    expect([code, stderr.replace(/^first start.*\n/, '')]).toEqual([0, '']);
  }
});

afterAll(() => new Promise((resolve) => upstream?.close(resolve)));

interface Want {
  code: number;
  /** The whole of stderr, or its first line for a usage error that prints the usage after it. */
  stderr?: string;
  stdout?: RegExp;
}

const USAGE = /^usage: portcullis <command>/;

describe('the portcullis command says what to change', () => {
  it.each<[string, { given: string[]; env?: Record<string, string>; want: Want }]>([
    [
      'no command at all',
      {
        given: [],
        want: { code: 2, stderr: 'usage: portcullis <command> [--workspace w] [--json]' },
      },
    ],
    ['--help', { given: ['--help'], want: { code: 0, stderr: '', stdout: USAGE } }],
    ['-h', { given: ['-h'], want: { code: 0, stderr: '', stdout: USAGE } }],
    ['help', { given: ['help'], want: { code: 0, stderr: '', stdout: USAGE } }],
    [
      "a command's --help",
      {
        given: ['agent', 'create', '--help'],
        want: {
          code: 0,
          stderr: '',
          stdout: /^usage: portcullis agent create <name> \[--workspace w\]\n/,
        },
      },
    ],
    [
      'help for a command',
      {
        given: ['help', 'grant'],
        want: { code: 0, stderr: '', stdout: /^usage: portcullis grant <agent> <connection>/ },
      },
    ],
    [
      'a misspelt command',
      {
        given: ['agnet', 'create', 'x'],
        want: {
          code: 2,
          stderr: 'portcullis: unknown command "agnet"; did you mean agent create?',
        },
      },
    ],
    [
      'a misspelt second word',
      {
        given: ['agent', 'crate', 'x'],
        want: {
          code: 2,
          stderr: 'portcullis: unknown command "agent crate"; did you mean agent create?',
        },
      },
    ],
    [
      'a word that needs a second one',
      {
        given: ['agent'],
        want: {
          code: 2,
          stderr: 'portcullis: agent needs one of: create, list, set, revoke, rotate-key, delete',
        },
      },
    ],
    [
      'an unknown word nothing is near',
      {
        given: ['frobnicate'],
        want: { code: 2, stderr: 'portcullis: unknown command "frobnicate"' },
      },
    ],
    ...(['member', 'agent', 'oauth', 'connection', 'admin-token', 'workspace'].map((group) => [
      `${group} --help`,
      {
        given: [group, '--help'],
        want: {
          code: 0,
          stderr: '',
          stdout: new RegExp(`^usage: portcullis ${group} <[a-z-|]+> …\n`),
        },
      },
    ]) as Array<[string, { given: string[]; want: Want }]>),
    [
      'help for a word that groups commands',
      {
        given: ['help', 'member'],
        want: {
          code: 0,
          stderr: '',
          stdout: /^usage: portcullis member <add\|role\|list\|password\|remove> …\n/,
        },
      },
    ],
    [
      'agent create without a name',
      {
        given: ['agent', 'create'],
        want: { code: 2, stderr: 'portcullis: agent create needs <name>' },
      },
    ],
    [
      'a grant without its connection',
      {
        given: ['grant', 'deploy-bot'],
        want: { code: 2, stderr: 'portcullis: grant needs <connection>' },
      },
    ],
    [
      "a member's grant without its connection",
      {
        given: ['grant', '--member', 'ada'],
        want: { code: 2, stderr: 'portcullis: grant needs <connection>' },
      },
    ],
    [
      "a member's grant naming an agent too",
      {
        given: ['grant', '--member', 'ada', 'deploy-bot', 'unikraft'],
        want: { code: 2, stderr: 'portcullis: unexpected argument "unikraft"' },
      },
    ],
    [
      "a member's grant revocation without its connection",
      {
        given: ['grant', 'revoke', '--member', 'ada'],
        want: { code: 2, stderr: 'portcullis: grant revoke needs <connection>' },
      },
    ],
    [
      'a consent revocation without its id',
      {
        given: ['oauth', 'revoke'],
        want: { code: 2, stderr: 'portcullis: oauth revoke needs <consent id>' },
      },
    ],
    [
      'classify without its class',
      {
        given: ['classify', 'unikraft', 'a-tool'],
        want: { code: 2, stderr: 'portcullis: classify needs <read|write|destructive|auto>' },
      },
    ],
    [
      'an audit window as a duration',
      {
        given: ['audit', '--since', '1h', '--until', '0m'],
        want: { code: 0, stderr: '', stdout: /^AT\s+ACTOR/ },
      },
    ],
    [
      'an audit window that is neither a time nor a duration',
      {
        given: ['audit', '--since', 'yesterday'],
        want: {
          code: 1,
          stderr:
            'portcullis: --since: expected a time (2026-01-31T09:00:00Z) or a duration back from now (30m, 1h, 7d), got "yesterday" [invalid_input]',
        },
      },
    ],
    [
      'an unused flag import does not take',
      {
        given: ['import', '-', '--token-env', 'TOKEN'],
        want: {
          code: 2,
          stderr: 'portcullis: unknown option --token-env',
        },
      },
    ],
    [
      'an extra argument',
      {
        given: ['agent', 'create', 'a', 'b'],
        want: { code: 2, stderr: 'portcullis: unexpected argument "b"' },
      },
    ],
    [
      'a class that is not one',
      {
        given: ['enable', 'unikraft', '--class', 'writes'],
        want: {
          code: 1,
          stderr:
            'portcullis: --class: expected one of read, write, destructive, got "writes"; did you mean write? [invalid_input]',
        },
      },
    ],
    [
      'a class filter that is not one',
      {
        given: ['actions', 'unikraft', '--class', 'reads'],
        want: {
          code: 1,
          stderr:
            'portcullis: --class: expected one of read, write, destructive, got "reads"; did you mean read? [invalid_input]',
        },
      },
    ],
    [
      'a misspelt flag',
      {
        given: ['enable', 'unikraft', '--clas', 'write'],
        want: { code: 2, stderr: 'portcullis: unknown option --clas; did you mean --class?' },
      },
    ],
    [
      'a flag without its value',
      {
        given: ['grant', 'deploy-bot', 'unikraft', '--scope'],
        want: { code: 2, stderr: 'portcullis: --scope needs a value' },
      },
    ],
    [
      'a scope that is not one',
      {
        given: ['grant', 'deploy-bot', 'unikraft', '--scope', 'everything'],
        want: {
          code: 1,
          stderr:
            'portcullis: --scope: expected one of all, reads, actions, got "everything" [invalid_input]',
        },
      },
    ],
    [
      'a metro outside the set',
      {
        given: [
          'connect',
          'unikraft',
          '--name',
          'other',
          '--token-env',
          'TOKEN',
          '--default-metro',
          'fr',
        ],
        want: {
          code: 1,
          stderr:
            'portcullis: --default-metro: expected one of fra, dal, sin, was, sfo, got "fr"; did you mean fra? [invalid_input]',
        },
      },
    ],
    [
      'a setting the provider does not have',
      {
        given: [
          'connect',
          'unikraft',
          '--name',
          'other',
          '--token-env',
          'TOKEN',
          '--setting',
          'metr=fra',
        ],
        want: {
          code: 1,
          stderr:
            'portcullis: --setting metr=…: unikraft has no such setting (it has metro); did you mean metro? [invalid_input]',
        },
      },
    ],
    [
      'a credential variable that is unset',
      {
        given: ['connect', 'unikraft', '--name', 'other', '--token-env', 'NO_SUCH_VARIABLE'],
        want: {
          code: 1,
          stderr:
            'portcullis: environment variable NO_SUCH_VARIABLE is empty or unset (change --token-env) [invalid_input]',
        },
      },
    ],
    [
      'a misspelt provider',
      {
        given: ['connect', 'unikraf', '--token-env', 'TOKEN'],
        want: {
          code: 1,
          stderr:
            'portcullis: no provider unikraf in the catalogs; did you mean unikraft? (change <provider>) [not_found]',
        },
      },
    ],
    [
      'a curated remote MCP server named as a provider',
      {
        given: ['connect', 'linear', '--token-env', 'TOKEN'],
        want: {
          code: 1,
          stderr:
            'portcullis: linear is a curated remote MCP server (Linear), not a native provider: connect it by its URL (https://mcp.linear.app/mcp) (change <provider>) [not_found]',
        },
      },
    ],
    [
      'a misspelt agent',
      {
        given: ['grant', 'deploy-bto', 'unikraft'],
        want: {
          code: 1,
          stderr:
            'portcullis: no agent deploy-bto in this workspace; did you mean deploy-bot? (change <agent>) [not_found]',
        },
      },
    ],
    [
      'a misspelt member',
      {
        given: ['grant', '--member', 'adaa', 'unikraft'],
        want: {
          code: 1,
          stderr:
            'portcullis: no member adaa in this workspace; did you mean ada? (change --member) [not_found]',
        },
      },
    ],
    [
      "a member's grant with a personal credential",
      {
        given: ['grant', '--member', 'ada', 'unikraft', '--personal'],
        want: {
          code: 1,
          stderr:
            "portcullis: --personal: a member's grant uses the connection's shared credential [invalid_input]",
        },
      },
    ],
    [
      'a misspelt connection',
      {
        given: ['actions', 'unikrft'],
        want: {
          code: 1,
          stderr:
            'portcullis: no connection unikrft in this workspace; did you mean unikraft? (change <connection>) [not_found]',
        },
      },
    ],
    [
      'a misspelt action',
      {
        given: ['enable', 'unikraft', 'unikraft_create_volum'],
        want: {
          code: 1,
          stderr:
            'portcullis: connection unikraft has no action unikraft_create_volum; did you mean unikraft_create_volume? (change [action...], --class or --all) [not_found]',
        },
      },
    ],
    [
      'a misspelt workspace',
      {
        given: ['agent', 'list', '--workspace', 'defualt'],
        want: {
          code: 1,
          stderr:
            'portcullis: no workspace defualt; did you mean default? (change --workspace) [not_found]',
        },
      },
    ],
    [
      'an audit decision that is not one',
      {
        given: ['audit', '--decision', 'alowed'],
        want: {
          code: 1,
          stderr:
            'portcullis: --decision: expected one of allowed, denied, got "alowed"; did you mean allowed? [invalid_input]',
        },
      },
    ],
    [
      'a connect whose provider cannot be reached (no development override)',
      {
        given: ['connect', 'unikraft', '--name', 'offline', '--token-env', 'TOKEN'],
        env: { PORTCULLIS_DEV_UPSTREAMS: '' },
        want: {
          code: 1,
          stderr:
            "portcullis: could not verify the credential: Unikraft Cloud did not answer unikraft_get_user at api.fra.unikraft.cloud (upstream_unreachable). Check the network and the connection's settings; in development, PORTCULLIS_DEV_UPSTREAMS sends its calls to a mock such as npm run mock [verify_failed]",
        },
      },
    ],
    [
      'a log level with a typo',
      {
        given: ['agent', 'list'],
        env: { PORTCULLIS_LOG_LEVEL: 'debg' },
        want: {
          code: 1,
          stderr:
            'portcullis: PORTCULLIS_LOG_LEVEL: expected one of fatal, error, warn, info, debug, silent, got "debg"; did you mean debug?\n  code: config_invalid (change PORTCULLIS_LOG_LEVEL)',
        },
      },
    ],
    [
      'a PORT that is not a number',
      {
        given: ['agent', 'list'],
        env: { PORT: 'abc' },
        want: {
          code: 1,
          stderr:
            'portcullis: PORT: expected a port number from 0 to 65535 (0: any free port), got "abc"\n  code: config_invalid (change PORT)',
        },
      },
    ],
    [
      'a data folder that is a file',
      {
        given: ['agent', 'list'],
        env: { PORTCULLIS_DATA_DIR: aFile },
        want: {
          code: 1,
          stderr: `portcullis: PORTCULLIS_DATA_DIR: "${aFile}" is (or is inside) a file, not a folder; expected the path of a folder the gateway may write\n  code: config_invalid (change PORTCULLIS_DATA_DIR)`,
        },
      },
    ],
  ])('%s', async (_name, { given, env: more, want }) => {
    const outcome = await runPortcullisHere(given, { ...env, ...more });
    expect(outcome.code).toBe(want.code);
    if (want.stdout) expect(outcome.stdout).toMatch(want.stdout);
    else expect(outcome.stdout).toBe('');
    if (want.stderr !== undefined) {
      // A usage error prints the usage after its line; the line is what is asserted.
      const stderr = want.code === 2 ? outcome.stderr.split('\n')[0] : outcome.stderr.trimEnd();
      expect(stderr).toBe(want.stderr);
    }
  });

  it("shows every flag a command takes in its --help (credential set's --credential-env)", async () => {
    for (const [name, command] of Object.entries(commands)) {
      const help = await runPortcullisHere([...name.split(' '), '--help'], env);
      expect(help.code).toBe(0);
      for (const flag of Object.keys(command.options ?? {}))
        expect(help.stdout, `${name} --help`).toContain(`--${flag}`);
    }
  });
});

describe('an agent cleaned up', () => {
  it('says when revoking, rotating or deleting changed nothing, and frees a deleted name', async () => {
    const steps: Array<[string[], Want]> = [
      [['agent', 'create', 'old-bot'], { code: 0, stderr: '', stdout: /^created agent old-bot\n/ }],
      [
        ['agent', 'revoke', 'old-bot'],
        { code: 0, stderr: '', stdout: /^revoked agent old-bot\n$/ },
      ],
      [
        ['agent', 'revoke', 'old-bot'],
        {
          code: 0,
          stderr: '',
          stdout: /^agent old-bot was revoked already \(at [0-9T:.Z-]+\); nothing changed\n$/,
        },
      ],
      [
        ['agent', 'create', 'old-bot'],
        {
          code: 1,
          stderr:
            'portcullis: a revoked agent old-bot holds this name: portcullis agent delete old-bot frees it (change <name>) [conflict]',
        },
      ],
      [
        ['agent', 'rotate-key', 'old-bot'],
        {
          code: 1,
          stderr:
            'portcullis: agent old-bot is revoked: a revoked agent gets no new key (portcullis agent delete old-bot frees its name) (change <name>) [conflict]',
        },
      ],
      [
        ['agent', 'delete', 'old-bot'],
        {
          code: 0,
          stderr: '',
          stdout:
            /^deleted agent old-bot: its grants, credentials and consents are gone; the audit log keeps its history\n$/,
        },
      ],
      [
        ['agent', 'delete', 'old-bot'],
        {
          code: 1,
          stderr: 'portcullis: no agent old-bot in this workspace (change <name>) [not_found]',
        },
      ],
      [['agent', 'create', 'old-bot'], { code: 0, stderr: '', stdout: /^created agent old-bot\n/ }],
      [
        ['agent', 'rotate-key', 'old-bot'],
        {
          code: 0,
          stderr: '',
          stdout:
            /^new key for agent old-bot; the old one is refused from now on\n\nagent key \(shown once; give it to the agent as its Bearer token\):\npck_/,
        },
      ],
      [
        ['agent', 'create', 'old-bot'],
        {
          code: 1,
          stderr:
            'portcullis: an agent old-bot exists in this workspace: portcullis agent rotate-key old-bot gives it a new key (change <name>) [conflict]',
        },
      ],
    ];
    // Its own workspace, so the steps start from nothing whatever ran before.
    const workspace = `cleanup-${Date.now().toString(36)}`;
    expect((await runPortcullisHere(['workspace', 'create', workspace], env)).code).toBe(0);
    for (const [given, want] of steps) {
      const outcome = await runPortcullisHere([...given, '--workspace', workspace], env);
      expect([given, outcome.code, outcome.stderr.trimEnd()]).toEqual([
        given,
        want.code,
        want.stderr,
      ]);
      if (want.stdout) expect(outcome.stdout).toMatch(want.stdout);
    }
  });
});
