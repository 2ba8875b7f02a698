/**
 * `npm run scaffold`: writes a new provider's draft definition
 * (`specs/<id>/provider.ts`) from an OpenAPI document and lists it in
 * `specs/index.ts`. Refuses an id that is taken; writes nothing on any error.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { providerDefinitions, remoteDefinitions } from '../../specs/index.ts';
import { ProviderDefinitionSchema } from '../../specs/provider-definition.ts';
import { byCodeUnit } from '../code-unit-order.ts';
import { CompileError } from '../errors.ts';
import { loadDocument } from '../openapi/load-document.ts';
import { providerFromDocument, type ScaffoldOptions } from '../scaffold/provider-from-document.ts';
import type { FormatCode } from './biome-format.ts';
import { replaceFile } from './generated-tree.ts';

export interface ScaffoldRequest extends ScaffoldOptions {
  /** The OpenAPI document on disk. */
  file: string;
}

/** Writes the definition and the index entry under `root`; returns the files written. */
export async function scaffoldProvider(
  root: string,
  request: ScaffoldRequest,
  formatCode: FormatCode,
): Promise<string[]> {
  const { provider } = request;
  if (!/^[a-z][a-z0-9-]*$/.test(provider))
    throw new CompileError(
      'usage',
      `provider id "${provider}" is not lowercase letters, digits and dashes`,
      {
        fix: 'choose an id like "acme" or "acme-cloud"',
      },
    );
  const folder = join(root, 'specs', provider);
  if (
    Object.hasOwn(providerDefinitions, provider) ||
    Object.hasOwn(remoteDefinitions, provider) ||
    existsSync(folder)
  ) {
    throw new CompileError('usage', `provider "${provider}" already exists`, {
      place: { file: `specs/${provider}` },
      fix: `choose another id, or edit specs/${provider}/ by hand`,
    });
  }
  const document = loadDocument(await readFile(request.file), request.file);
  const definition = providerFromDocument(document, request);
  ProviderDefinitionSchema.parse(definition);

  const { Project, SyntaxKind } = await import('ts-morph');
  const project = new Project({ useInMemoryFileSystem: true });
  const binding = bindingName(provider);
  const source = project.createSourceFile('provider.ts', '');
  source.addImportDeclaration({
    namedImports: ['defineProvider'],
    moduleSpecifier: '../provider-definition.ts',
  });
  source.addExportAssignment({
    isExportEquals: false,
    expression: `defineProvider(${JSON.stringify(definition)})`,
  });

  const indexFile = join(root, 'specs', 'index.ts');
  const index = project.createSourceFile('index.ts', await readFile(indexFile, 'utf8'));
  if (index.getImportDeclarations().some((d) => d.getDefaultImport()?.getText() === binding)) {
    throw new CompileError('usage', `specs/index.ts already imports a "${binding}"`, {
      place: { file: 'specs/index.ts' },
      fix: 'choose another provider id',
    });
  }
  const specifier = `./${provider}/provider.ts`;
  const statement = `import ${binding} from '${specifier}';`;
  const imports = index.getImportDeclarations();
  const next = imports.find((d) => byCodeUnit(d.getModuleSpecifierValue(), specifier) > 0);
  // Inserted at the next import's start, after its leading comment (the file's header stays first).
  if (next) index.insertText(next.getStart(), `${statement}\n`);
  else index.insertText(imports.at(-1)?.getEnd() ?? 0, `\n${statement}`);
  const object = index
    .getVariableDeclarationOrThrow('providerDefinitions')
    .getInitializerOrThrow()
    .getFirstDescendantByKindOrThrow(SyntaxKind.ObjectLiteralExpression);
  const entry = binding === provider ? binding : `'${provider}': ${binding}`;
  const entries = [...object.getProperties().map((p) => p.getText()), entry].sort((x, y) =>
    byCodeUnit(keyOf(x), keyOf(y)),
  );
  object.replaceWithText(`{ ${entries.join(', ')} }`);

  const definitionText = await formatCode(`../specs/${provider}/provider.ts`, source.getFullText());
  const indexText = await formatCode('../specs/index.ts', index.getFullText());
  await mkdir(folder);
  await writeFile(join(folder, 'provider.ts'), definitionText);
  await replaceFile(indexFile, indexText);
  return [`specs/${provider}/provider.ts`, 'specs/index.ts'];
}

/** The provider's import name in specs/index.ts: its id in camelCase. */
function bindingName(provider: string): string {
  return provider.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The key of an object literal entry as written: `acme`, `acme: x` or `'acme-cloud': x`. */
function keyOf(entry: string): string {
  return entry.split(':')[0]!.trim().replace(/^'|'$/g, '');
}
