/**
 * The compiler's command line, and the only part of it that touches the file
 * system or the network.
 *
 *   generate [--check] [--problems]                   regenerate generated/, or verify it
 *   pin <provider> <document> --commit <sha> [--file <path>] [--repo <owner/name> --path <path>]
 *                                                     move (or make) a pin, regenerate, print the diff
 *   diff <provider> <document> --from <sha> [--to <sha>]     contract diff between two commits (default --to: the pin)
 *   scaffold <provider> <file> [--document <id>] [--server <url>]   draft a provider from a document
 *   <command> --help                                  the command's usage (generators/cli/usage.ts)
 */
import { TypesWorker } from './cli/types-worker.ts';

// Started before anything heavy is imported: loading TypeScript in the worker
// overlaps with loading the compiler here.
const types = new TypesWorker();
try {
  const { main } = await import('./cli/commands.ts');
  process.exitCode = await main(process.argv.slice(2), types.createTypes);
} catch (error) {
  const { CompileError, describeCompileError } = await import('./errors.ts');
  if (error instanceof CompileError) console.error(describeCompileError(error));
  else console.error(error);
  process.exitCode = error instanceof CompileError ? 2 : 70;
} finally {
  await types.close();
}
