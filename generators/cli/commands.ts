/** The compiler's commands: the only code that touches the file system or the network. */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { providerDefinitions, remoteDefinitions } from '../../specs/index.ts';
import { type Pin, PinsSchema, ProviderDefinitionSchema } from '../../specs/provider-definition.ts';
import { diffCatalogs, formatDiff } from '../catalog/diff.ts';
import type { Catalog } from '../catalog/format.ts';
import { sha256Hex } from '../catalog/rules.ts';
import { documentCatalog } from '../compile/compile-provider.ts';
import { jsonFile } from '../emit/banner.ts';
import { CompileError } from '../errors.ts';
import {
  ensureHash,
  type GeneratedTree,
  type GenerateInput,
  generate,
  type ProviderInput,
} from '../generate.ts';
import { loadDocument } from '../openapi/load-document.ts';
import { biomeFormatter } from './biome-format.ts';
import { findingKind, findingsSummary } from './findings-summary.ts';
import { compareTrees, readTree, replaceFile, replaceTree } from './generated-tree.ts';
import { pinOriginOrThrow } from './pin-origin.ts';
import { scaffoldProvider } from './scaffold-command.ts';
import { SpecStore } from './spec-store.ts';
import { COMMAND_USAGE, type CommandName, overallUsage } from './usage.ts';

/** The repository: the nearest folder above this module with a package.json (from source or from dist/). */
const ROOT = repositoryRoot(import.meta.dirname);
const GENERATED = join(ROOT, 'generated');

/** Runs one command; `createTypes` runs in the worker the entry point started first. */
export async function main(
  argv: string[],
  createTypes: GenerateInput['createTypes'],
): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') {
    console.log(overallUsage());
    return 0;
  }
  if (isCommand(command) && asksForHelp(rest)) {
    console.log(COMMAND_USAGE[command]);
    return 0;
  }
  switch (command) {
    case 'generate':
      return generateCommand(rest, createTypes);
    case 'pin':
      return pinCommand(rest, createTypes);
    case 'diff':
      return diffCommand(rest);
    case 'scaffold':
      return scaffoldCommand(rest);
    default:
      throw new CompileError('usage', `unknown command "${command ?? ''}"`, {
        fix: `use one of: ${Object.keys(COMMAND_USAGE).join(', ')} (each takes --help)`,
      });
  }
}

function isCommand(command: string | undefined): command is CommandName {
  return command !== undefined && Object.hasOwn(COMMAND_USAGE, command);
}

/** `--help` or `-h` among a command's own arguments (not after `--`). */
function asksForHelp(args: string[]): boolean {
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return own.includes('--help') || own.includes('-h');
}

async function generateCommand(
  args: string[],
  createTypes: GenerateInput['createTypes'],
): Promise<number> {
  const { values } = parse(
    'generate',
    args,
    { check: { type: 'boolean', default: false }, problems: { type: 'boolean', default: false } },
    0,
  );
  const started = performance.now();
  const tree = await run(await loadProviders(), specStore(), createTypes);
  if (values.problems) printProblems(tree);
  if (values.check) {
    const difference = compareTrees(tree.files, await readTree(GENERATED));
    const problems = [
      ...difference.missing.map((p) => `missing: generated/${p}`),
      ...difference.different.map((p) => `differs: generated/${p}`),
      ...difference.extra.map((p) => `stale or extra: generated/${p}`),
    ];
    if (problems.length > 0) {
      console.error(
        `error[generated_out_of_date]: generated/ does not match the pins and the compiler\n  ${problems.join('\n  ')}\n  fix: run npm run generate and commit the result`,
      );
      return 1;
    }
    console.log(
      `generated/ is up to date: ${tree.files.size} files, every pin verified (${elapsed(started)})`,
    );
    return 0;
  }
  await replaceTree(GENERATED, tree.files);
  console.log(`wrote ${tree.files.size} files to generated/ (${elapsed(started)})`);
  return 0;
}

async function pinCommand(
  args: string[],
  createTypes: GenerateInput['createTypes'],
): Promise<number> {
  const { values, positionals } = parse(
    'pin',
    args,
    {
      commit: { type: 'string' },
      file: { type: 'string' },
      repo: { type: 'string' },
      path: { type: 'string' },
    },
    2,
  );
  const [provider, document] = positionals as [string, string];
  const commit = values.commit;
  if (!commit || !isCommit(commit))
    throw usage('pin', '--commit <sha> takes the full 40-character commit');
  const { providers, pins, pin: old } = await documentToPin(provider, document);
  const origin = pinOriginOrThrow(provider, document, old, values);
  const store = specStore();
  const bytes = values.file
    ? await readFile(values.file)
    : await store.readAtCommit({ ...origin, commit });
  const next = { ...origin, commit, sha256: sha256Hex(bytes) };
  const moved = { ...pins, [document]: next };
  // The new bytes stay in memory until everything compiled: a refused pin leaves nothing in the cache.
  const tree = await run(
    { ...providers, [provider]: { ...providers[provider]!, pins: moved } },
    store,
    createTypes,
    (pin) => (pin.sha256 === next.sha256 ? bytes : undefined),
  );
  const before = await readJson<Catalog>(join(GENERATED, provider, 'catalog.json'));
  await store.remember(bytes);
  await replaceTree(GENERATED, tree.files);
  await replaceFile(join(ROOT, 'specs', provider, 'pins.json'), jsonFile(moved));
  console.log(`pinned ${provider}/${document} at ${commit} (sha256 ${next.sha256})`);
  const after = tree.catalogs.find((c) => c.provider.id === provider)!;
  if (before) console.log(formatDiff(diffCatalogs(before, after)));
  return 0;
}

async function diffCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    'diff',
    args,
    { from: { type: 'string' }, to: { type: 'string' } },
    2,
  );
  const [provider, document] = positionals as [string, string];
  if (!values.from || !isCommit(values.from))
    throw usage('diff', '--from <sha> takes the full 40-character commit');
  if (values.to !== undefined && !isCommit(values.to))
    throw usage('diff', '--to <sha> takes the full 40-character commit');
  const { definition, pin } = await pinnedDocument(provider, document);
  const store = specStore();
  const compileAt = async (commit: string | undefined) => {
    const bytes =
      commit === undefined
        ? await store.read(provider, document, pin)
        : await store.readAtCommit({ ...pin, commit });
    if (commit === undefined) ensureHash(provider, document, pin, bytes);
    const label = `${pin.repo}@${(commit ?? pin.commit).slice(0, 12)}:${pin.path}`;
    return documentCatalog(definition, {
      id: document,
      pin: { ...pin, commit: commit ?? pin.commit },
      document: loadDocument(bytes, label),
    });
  };
  console.log(formatDiff(diffCatalogs(await compileAt(values.from), await compileAt(values.to))));
  return 0;
}

async function scaffoldCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    'scaffold',
    args,
    { document: { type: 'string', default: 'api' }, server: { type: 'string' } },
    2,
  );
  const [provider, file] = positionals as [string, string];
  const written = await scaffoldProvider(
    ROOT,
    { provider, file, document: values.document, server: values.server },
    biomeFormatter(ROOT),
  );
  console.log(`wrote ${written.join(' and ')}`);
  console.log(
    `next: review specs/${provider}/provider.ts (name, description, documentation, auth, verify), then pin the document:\n  npm run pin -- ${provider} ${values.document} --commit <sha> --repo <owner/name> --path <path/in/repo> --file ${file}`,
  );
  return 0;
}

/** A provider's parsed definition and pins (none yet when it has no pins file), and its document's pin if it has one. */
async function documentToPin(provider: string, document: string) {
  const providers = await loadProviders({ withoutPins: true });
  const { definition, pins } = parsedProvider(providers, provider);
  if (!Object.hasOwn(definition.documents, document)) {
    throw new CompileError(
      'unknown_document',
      `provider "${provider}" has no document "${document}"`,
      {
        place: { file: `specs/${provider}/provider.ts`, pointer: '/documents' },
        fix: `use one of: ${Object.keys(definition.documents).join(', ')}`,
      },
    );
  }
  return { providers, definition, pins, pin: pins[document] };
}

/** A provider's parsed definition and pins, and the pin of one of its documents. */
async function pinnedDocument(provider: string, document: string) {
  const providers = await loadProviders();
  const { definition, pins } = parsedProvider(providers, provider);
  const pin = pins[document];
  if (!pin) {
    throw new CompileError(
      'unknown_document',
      `provider "${provider}" has no pinned document "${document}"`,
      {
        place: { file: `specs/${provider}/pins.json` },
        fix: `use one of: ${Object.keys(pins).join(', ')}`,
      },
    );
  }
  return { providers, definition, pins, pin };
}

function parsedProvider(providers: Record<string, ProviderInput>, provider: string) {
  const current = providers[provider];
  if (!current) {
    throw new CompileError('unknown_provider', `no provider "${provider}"`, {
      place: { file: 'specs/index.ts' },
      fix: `use one of: ${Object.keys(providers).join(', ')}`,
    });
  }
  const definition = ProviderDefinitionSchema.parse(current.definition);
  const pins = PinsSchema.parse(current.pins);
  return { definition, pins };
}

function isCommit(value: string): boolean {
  return /^[0-9a-f]{40}$/.test(value);
}

/** Every validation problem, one line each, with the JSON pointer of its place. */
function printProblems(tree: GeneratedTree): void {
  for (const r of tree.reports) {
    for (const p of r.problems) {
      console.log(
        `  ${r.provider}/${r.document}#${p.pointer} [${p.rule}, ${findingKind(p)}] ${p.message}`,
      );
    }
  }
}

async function run(
  providers: Record<string, ProviderInput>,
  store: SpecStore,
  createTypes: GenerateInput['createTypes'],
  inMemory: (pin: Pin) => Uint8Array | undefined = () => undefined,
): Promise<GeneratedTree> {
  const tree = await generate({
    providers,
    remotes: remoteDefinitions,
    readPin: async (provider, document, pin) =>
      inMemory(pin) ?? store.read(provider, document, pin),
    formatSource: await readFile(join(ROOT, 'generators', 'catalog', 'format.ts'), 'utf8'),
    rulesSource: await readFile(join(ROOT, 'generators', 'catalog', 'rules.ts'), 'utf8'),
    createTypes,
    formatCode: biomeFormatter(ROOT),
  });
  for (const r of tree.reports) {
    console.log(
      `${r.provider}/${r.document}: ${r.operations} operations, ${r.actions} actions, ${r.inventory} inventoried${findingsSummary(r.problems)}`,
    );
  }
  for (const { connection: r } of tree.remotes) {
    console.log(
      `${r.id}: curated remote MCP server, ${r.endpoints.length} endpoint pattern${r.endpoints.length === 1 ? '' : 's'}, auth ${r.auth.map((a) => a.kind).join(' or ')}`,
    );
  }
  return tree;
}

/** Every provider in specs/index.ts with its pins; `withoutPins` lets a provider have no pins file yet (for its first pin). */
async function loadProviders(
  options: { withoutPins?: boolean } = {},
): Promise<Record<string, ProviderInput>> {
  const entries = await Promise.all(
    Object.entries(providerDefinitions).map(async ([id, definition]) => {
      const file = join(ROOT, 'specs', id, 'pins.json');
      const pins = await readJson<unknown>(file);
      if (pins === undefined && options.withoutPins) return [id, { definition, pins: {} }] as const;
      if (pins === undefined) {
        throw new CompileError('invalid_definition', 'no pins file', {
          place: { file },
          fix: `pin each document (this creates the file): npm run pin -- ${id} <document> --commit <sha> --repo <owner/name> --path <path/in/repo> [--file <local copy>]`,
        });
      }
      return [id, { definition, pins }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

function specStore(): SpecStore {
  const mirror = process.env.PORTCULLIS_SPEC_MIRROR;
  return new SpecStore({
    mirror: mirror ? resolve(mirror) : undefined,
    cacheDir: resolve(process.env.PORTCULLIS_SPEC_CACHE ?? join(ROOT, '.cache', 'specs')),
    download: process.env.PORTCULLIS_SPEC_DOWNLOAD !== '0',
  });
}

async function readJson<T>(file: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new CompileError('document_unreadable', 'not valid JSON', {
      place: { file },
      fix: 'fix or regenerate the file',
      cause,
    });
  }
}

type Options = Parameters<typeof parseArgs>[0] extends infer C
  ? C extends { options?: infer O }
    ? O
    : never
  : never;

function parse<O extends NonNullable<Options>>(
  command: CommandName,
  args: string[],
  options: O,
  positionals: number,
) {
  let parsed: ReturnType<typeof parseArgs<{ options: O; allowPositionals: boolean; strict: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    throw usage(command, error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length !== positionals)
    throw usage(command, `expected ${positionals} arguments, got ${parsed.positionals.length}`);
  return parsed;
}

/** A usage error: the command's usage line, and where its help is. */
function usage(command: CommandName, message: string): CompileError {
  const line = COMMAND_USAGE[command].split('\n')[0]!.slice('usage: '.length);
  return new CompileError('usage', message, {
    fix: `${line} (see npm run ${command} -- --help)`,
  });
}

function elapsed(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(2)} s`;
}

function repositoryRoot(from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (dirname(folder) === folder) throw new Error(`no package.json above ${from}`);
  }
}
