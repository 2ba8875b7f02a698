/** The compiler's commands as a maintainer types them: each one's usage, printed by `--help`. */

export type CommandName = 'generate' | 'pin' | 'diff' | 'scaffold';

/** Each command's help text, in the order `--help` lists them. */
export const COMMAND_USAGE: Record<CommandName, string> = {
  generate: `usage: npm run generate [-- --check] [--problems]

Compiles every provider's pinned documents and curated definition (specs/) into generated/.

  --check      write nothing; exit 1 if any generated file differs, is missing or is stale
  --problems   also list each validation problem with its JSON pointer
  -h, --help   show this help

Exit codes: 0 done, 1 generated/ out of date (--check), 2 compile or usage error, 70 crash.`,
  pin: `usage: npm run pin -- <provider> <document> --commit <sha> [--file <path>] [--repo <owner/name> --path <path>]

Moves (or makes) the pin of one document: resolves the bytes, records their sha256 in
specs/<provider>/pins.json (created when there is none), regenerates generated/ and
prints the contract diff. If anything fails, nothing is written.

  --commit <sha>        the full 40-character commit of the document's repository
  --file <path>         take the bytes from a local copy instead of fetching them at --commit
  --repo <owner/name>   the GitHub repository the document lives in (needed for a first pin)
  --path <path>         the document's path inside that repository (needed for a first pin)
  -h, --help            show this help

A pin always names where the document lives upstream (--repo, --path, --commit), even
when --file supplies the bytes: CI checks the sha256 against that upstream file.`,
  diff: `usage: npm run diff -- <provider> <document> --from <sha> [--to <sha>]

Prints the contract diff of one document between two commits; writes nothing.

  --from <sha>   the full 40-character commit to compare from
  --to <sha>     the commit to compare to (default: the pinned one)
  -h, --help     show this help`,
  scaffold: `usage: npm run scaffold -- <provider> <file> [--document <id>] [--server <https url>]

Writes specs/<provider>/provider.ts from an OpenAPI document (its title, server, auth from
its security schemes, a suggested verify read) and adds the provider to specs/index.ts.
Refuses a provider id that already exists. Review the definition, then pin the document.

  --document <id>   the document's id inside the provider (default: api)
  --server <url>    the https server URL template, when the document has none or an http one
  -h, --help        show this help`,
};

/** What \`--help\` without a command prints. */
export function overallUsage(): string {
  const lines = Object.values(COMMAND_USAGE).map((text) => `  ${text.split('\n')[0]!.slice(7)}`);
  return `The catalog compiler's commands (docs/compiler.md):\n\n${lines.join('\n')}\n\nEach one takes --help.`;
}
