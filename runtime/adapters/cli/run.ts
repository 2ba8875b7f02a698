/**
 * One run of the `portcullis` command: find the command, parse its flags,
 * open the store and call the operator verb, then print the result or the
 * error. Every message a person can get names the word, flag or variable to
 * change and, where it can guess, the nearest valid one. Exit codes: 0 done
 * (help included, on stdout), 1 refused or failed, 2 a usage error (stderr).
 */
import { parseArgs } from 'node:util';
import { openGateway } from '../../compose/open-gateway.ts';
import { configFromEnvironment } from '../../config/config.ts';
import { ConfigError, configErrorText } from '../../config/config-error.ts';
import { publicError } from '../../core/base/errors.ts';
import { didYouMean, nearestWord } from '../../core/base/nearest-word.ts';
import { DEFAULT_WORKSPACE } from '../../core/pipeline/bootstrap.ts';
import type { Command } from './command.ts';
import { commands } from './commands.ts';
import { type Output, printProblem } from './output.ts';
import { storeEnvironment } from './store-location.ts';

const COMMON = {
  workspace: { type: 'string', default: DEFAULT_WORKSPACE },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export interface RunOptions {
  /** The environment: the store's variables, and the secrets `--token-env` names. */
  env: Record<string, string | undefined>;
  /** How to print, once it is known whether `--json` was given. */
  output(json: boolean): Output;
  /** The compiled catalogs (`generated/`). */
  catalogs: URL;
  /** The folder the command runs in: where `./data` is looked for. */
  cwd: string;
  /** The checkout the command belongs to: where `npm start` keeps its `./data`. */
  checkout: string;
}

export async function runPortcullis(argv: string[], options: RunOptions): Promise<number> {
  const out = options.output(argv.includes('--json'));
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (argv.length === 0) {
    printProblem(out, usage());
    return 2;
  }
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    const named = findCommand(argv.slice(1));
    out.write(named ? commandHelp(named.name, named.command) : (groupHelp(argv[1]) ?? usage()));
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    // A word that groups commands (`agent`, `member`) answers its --help with them.
    const group = wantsHelp ? groupHelp(argv[0]) : undefined;
    if (group !== undefined) {
      out.write(group);
      return 0;
    }
    printProblem(
      out,
      `portcullis: ${unknownCommand(argv)}\n(portcullis --help lists the commands)\n`,
    );
    return 2;
  }
  const { name, command } = found;
  if (wantsHelp) {
    out.write(commandHelp(name, command));
    return 0;
  }
  const parsed = parseFlags(found.rest, command);
  if (typeof parsed === 'string') {
    printProblem(out, `portcullis: ${parsed}\nusage: portcullis ${command.usage}\n`);
    return 2;
  }

  let gateway: Awaited<ReturnType<typeof openGateway>>;
  try {
    gateway = await openGateway({
      config: configFromEnvironment(
        storeEnvironment(options.env, { cwd: options.cwd, checkout: options.checkout }),
      ),
      catalogs: options.catalogs,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printProblem(out, configErrorText(error));
    return 1;
  }
  try {
    if (gateway.startup.adminToken) {
      printProblem(
        out,
        `first start: admin token (shown once; keep it): ${gateway.startup.adminToken}\n`,
      );
    }
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    const ctx = gateway.operator('cli');
    await command.run({
      ctx,
      gateway,
      out,
      args: parsed.positionals,
      values,
      workspace: String(values.workspace),
      env: options.env,
    });
    // Servers sharing this state (Redis) tell their listening agents at once; the others within a second.
    ctx.changed?.();
    return 0;
  } catch (error) {
    const problem = publicError(error);
    if (out.json) {
      printProblem(out, `${JSON.stringify({ error: problem })}\n`);
      return 1;
    }
    const flag = problem.field === undefined ? undefined : flagFor(problem.field, command);
    // A message that starts with the field's name starts with what the person typed instead.
    const message =
      problem.field !== undefined &&
      flag !== undefined &&
      problem.message.startsWith(`${problem.field}: `)
        ? `${flag}: ${problem.message.slice(problem.field.length + 2)}`
        : problem.message;
    const change = flag === undefined || message.includes(flag) ? '' : ` (change ${flag})`;
    printProblem(out, `portcullis: ${message}${change} [${problem.code}]\n`);
    return 1;
  } finally {
    await gateway.close();
  }
}

function findCommand(
  argv: string[],
): { name: string; command: Command; rest: string[] } | undefined {
  // `oauth client add`: a verb under a two-word command (a client id is never `add` or `list`).
  const three = `${argv[0]} ${argv[1]} ${argv[2]}`;
  if (argv.length >= 3 && commands[three])
    return { name: three, command: commands[three], rest: argv.slice(3) };
  const two = `${argv[0]} ${argv[1]}`;
  if (argv.length >= 2 && commands[two])
    return { name: two, command: commands[two], rest: argv.slice(2) };
  const one = argv[0] === undefined ? undefined : commands[argv[0]];
  return one ? { name: argv[0]!, command: one, rest: argv.slice(1) } : undefined;
}

/** `unknown command "agnet"; did you mean agent create?`, or the subcommands a word takes. */
function unknownCommand(argv: string[]): string {
  const names = Object.keys(commands);
  const [first = '', second] = argv;
  const firstWords = [...new Set(names.map((n) => n.split(' ')[0]!))];
  const subcommands = (word: string) =>
    names.filter((n) => n.startsWith(`${word} `)).map((n) => n.slice(word.length + 1));
  if (firstWords.includes(first)) {
    // A word that needs a second one: `agent`, `agent crate`.
    const known = subcommands(first);
    if (second === undefined || second.startsWith('-'))
      return `${first} needs one of: ${known.join(', ')}`;
    const near = nearestWord(second, known);
    return `unknown command "${first} ${second}"${near ? `; did you mean ${first} ${near}?` : `; ${first} takes ${known.join(', ')}`}`;
  }
  const near = nearestWord(first, firstWords);
  if (near === undefined) return `unknown command "${first}"`;
  const inner = second === undefined ? undefined : nearestWord(second, subcommands(near));
  const guess = commands[near] || inner === undefined ? near : `${near} ${inner}`;
  return `unknown command "${first}"; did you mean ${guess}?`;
}

/** The parsed flags, or what is wrong with them. */
function parseFlags(rest: string[], command: Command): ReturnType<typeof parseArgs> | string {
  const options = { ...COMMON, ...command.options };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const given = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && given !== undefined) {
      const flags = Object.keys(options).map((o) => `--${o}`);
      return `unknown option ${given}${didYouMean(given.split('=')[0]!, flags)}`;
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && given !== undefined)
      return `${given} needs a value`;
    return message;
  }
  // A flag in place of the first argument (`--member`) leaves the arguments after it.
  const instead =
    command.firstArgumentFlag !== undefined &&
    parsed.values[command.firstArgumentFlag] !== undefined
      ? 1
      : 0;
  const takes = (command.usage.match(/<[^>]+>/g)?.length ?? 0) - instead;
  // A missing argument is a usage error, as a missing flag value is.
  const needed = (command.usage.split(/ \[| --/)[0]!.match(/<[^>]+>/g) ?? []).slice(instead);
  const missing = needed[parsed.positionals.length];
  const alone = command.argumentsOptionalWith;
  if (missing !== undefined && !(alone !== undefined && parsed.values[alone] === true))
    return `${command.usage.split(' <')[0]} needs ${missing}`;
  const variadic = /\.\.\.\]/.test(command.usage.split(' --')[0] ?? '');
  const extra = parsed.positionals[takes];
  if (!variadic && extra !== undefined) return `unexpected argument ${JSON.stringify(extra)}`;
  return parsed;
}

/** The flag or argument that sets an operator verb's input field, for this command. */
function flagFor(field: string, command: Command): string | undefined {
  const named = command.fields?.[field];
  if (named !== undefined) return named;
  if (field === 'workspace') return '--workspace';
  if (field.startsWith('settings.')) return `--setting ${field.slice('settings.'.length)}=…`;
  if (field.startsWith('credential.'))
    return `--credential-env ${field.slice('credential.'.length)}=VAR`;
  // Already a flag, an argument or a variable: as the message has it.
  return field;
}

function usage(): string {
  return [
    'usage: portcullis <command> [--workspace w] [--json]',
    '',
    ...Object.values(commands).map((c) => `  ${c.usage}\n      ${c.summary}`),
    '',
    'The store is the one the server uses: PORTCULLIS_DATA_DIR (default ./data) or DATABASE_URL.',
    '',
  ].join('\n');
}

/** The commands a first word groups (`agent create`, `agent list`, …), or undefined for a word that groups none. */
function groupHelp(word: string | undefined): string | undefined {
  const grouped = Object.entries(commands).filter(([name]) => name.startsWith(`${word} `));
  if (word === undefined || grouped.length === 0) return undefined;
  const secondWords = new Set(grouped.map(([name]) => name.slice(word.length + 1).split(' ')[0]));
  return [
    `usage: portcullis ${word} <${[...secondWords].join('|')}> …`,
    '',
    ...grouped.map(([, c]) => `  ${c.usage}\n      ${c.summary}`),
    '',
  ].join('\n');
}

function commandHelp(_name: string, command: Command): string {
  return `usage: portcullis ${command.usage}\n  ${command.summary}\n`;
}
