/**
 * A client-auth scenario's client command as the conformance suite runs it:
 * the server URL is the last argument, `--root <checkout>` says where the
 * gateway's catalogs are, the scenario's name and context come in
 * `MCP_CONFORMANCE_SCENARIO` and `MCP_CONFORMANCE_CONTEXT`. Exits 0 once
 * `run` resolves, 1 with the error's public code and message (never a
 * secret) when it throws.
 */
import { publicError } from '../../runtime/core/base/errors.ts';

export type ScenarioRun = (
  serverUrl: string,
  context: string | undefined,
  root: string,
  log: (line: string) => void,
) => Promise<unknown>;

export function runScenarioClient(run: ScenarioRun): void {
  const serverUrl = process.argv.at(-1) ?? '';
  const at = process.argv.indexOf('--root');
  const root = at > 0 ? (process.argv[at + 1] ?? process.cwd()) : process.cwd();
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'unknown';
  const log = (line: string) => console.error(`[${scenario}] ${line}`);
  run(serverUrl, process.env.MCP_CONFORMANCE_CONTEXT, root, log).then(
    () => process.exit(0),
    (error: unknown) => {
      const shown = publicError(error);
      log(`failed: ${shown.code}: ${shown.message}`);
      process.exit(1);
    },
  );
}
