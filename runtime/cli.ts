/**
 * `portcullis`: the operator's command. It opens the same store the server
 * uses (PORTCULLIS_DATA_DIR or DATABASE_URL) and calls the operator verbs the
 * admin API calls; a running server sees every change on its next request.
 */
import { parseArgs } from 'node:util';
import { type Command, commands } from './cli/commands.ts';
import { terminalOutput } from './cli/output.ts';
import { configFromEnvironment } from './core/config/config.ts';
import { publicError } from './core/errors.ts';
import { DEFAULT_WORKSPACE } from './core/gateway/bootstrap.ts';
import { openGateway } from './open-gateway.ts';

const COMMON = {
  workspace: { type: 'string', default: DEFAULT_WORKSPACE },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const two = `${argv[0]} ${argv[1]}`;
  if (argv.length >= 2 && commands[two]) return { command: commands[two], rest: argv.slice(2) };
  const one = argv[0] ? commands[argv[0]] : undefined;
  return one ? { command: one, rest: argv.slice(1) } : undefined;
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

async function main(argv: string[]): Promise<number> {
  const found = findCommand(argv);
  const jsonWanted = argv.includes('--json');
  const out = terminalOutput(jsonWanted);
  if (!found || argv.includes('--help') || argv.includes('-h')) {
    (found ? out.write : out.error)(found ? `usage: portcullis ${found.command.usage}\n` : usage());
    return found ? 0 : 2;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: found.rest,
      options: { ...COMMON, ...found.command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    out.error(
      `portcullis: ${(error as Error).message}\nusage: portcullis ${found.command.usage}\n`,
    );
    return 2;
  }
  const config = configFromEnvironment(process.env);
  const gateway = await openGateway({
    config,
    catalogs: new URL('../generated/', import.meta.url),
  });
  try {
    if (gateway.startup.adminToken) {
      out.error(`first start: admin token (shown once; keep it): ${gateway.startup.adminToken}\n`);
    }
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    const ctx = gateway.operator('cli');
    await found.command.run({
      ctx,
      gateway,
      out,
      args: parsed.positionals,
      values,
      workspace: String(values.workspace),
    });
    // Servers sharing this state (Redis) tell their listening agents at once; the others within a second.
    ctx.changed?.();
    return 0;
  } catch (error) {
    const problem = publicError(error);
    if (out.json) out.error(`${JSON.stringify({ error: problem })}\n`);
    else
      out.error(
        `portcullis: ${problem.message}${problem.field ? ` (change ${problem.field})` : ''} [${problem.code}]\n`,
      );
    return 1;
  } finally {
    await gateway.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`portcullis: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
