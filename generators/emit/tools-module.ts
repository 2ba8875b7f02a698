/**
 * `generated/<provider>/tools.ts`, written with ts-morph: the union of action
 * names, an argument type per action (built on the openapi-typescript types of
 * its document) and the classification of each, so code that calls an action
 * by name type-checks its arguments.
 */
import type * as TsMorph from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import type { Catalog, CatalogAction } from '../catalog/format.ts';
import { requireCommonJs } from '../require-commonjs.ts';
import { bannerComment } from './banner.ts';

const { IndentationText, NewLineKind, Project, QuoteKind, VariableDeclarationKind } =
  requireCommonJs('ts-morph') as typeof TsMorph;

const GROUPS = [
  'server',
  'path',
  'query',
  'header',
  'cookie',
  'body',
  'contentType',
  'files',
] as const;

export function createProject(): TsMorph.Project {
  return new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Single,
      newLineKind: NewLineKind.LineFeed,
      useTrailingCommas: true,
    },
  });
}

export function createToolsModule(catalog: Catalog, banner: string[]): string {
  const file = createProject().createSourceFile('tools.ts', '', { overwrite: true });
  file.addStatements(bannerComment(banner));
  addImports(file, catalog);
  file.addTypeAlias({
    isExported: true,
    name: 'ActionName',
    docs: [`Every action ${catalog.provider.name} advertises.`],
    type:
      catalog.actions.length === 0
        ? 'never'
        : catalog.actions.map((a) => quote(a.name)).join(' | '),
  });
  file.addInterface({
    isExported: true,
    name: 'ActionArguments',
    docs: ['The arguments of each action, grouped by where they go in the request.'],
    properties: catalog.actions.map((action) => ({
      name: quote(action.name),
      docs: [`${action.request.method} ${action.request.path} (${action.classification})`],
      type: argumentsType(action),
    })),
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['How each action is classified.'],
    declarations: [
      {
        name: 'classification',
        initializer: `{\n${catalog.actions.map((a) => `  ${a.name}: ${quote(a.classification)},`).join('\n')}\n} as const satisfies Record<ActionName, Classification>`,
      },
    ],
  });
  return file.getFullText();
}

function addImports(file: SourceFile, catalog: Catalog): void {
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: '../catalog-format.js',
    namedImports: ['Classification'],
  });
  for (const source of catalog.sources) {
    file.addImportDeclaration({
      isTypeOnly: true,
      moduleSpecifier: `./${source.document}.js`,
      namedImports: [{ name: 'paths', alias: pathsAlias(source.document) }],
    });
  }
}

function pathsAlias(document: string): string {
  return `${document.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Paths`;
}

function argumentsType(action: CatalogAction): string {
  const properties = (action.inputSchema.properties ?? {}) as Record<
    string,
    Record<string, unknown>
  >;
  const required = new Set((action.inputSchema.required ?? []) as string[]);
  const operation = `${pathsAlias(action.document)}[${quote(action.request.path)}][${quote(action.request.method.toLowerCase())}]`;
  const members = GROUPS.filter((g) => g in properties).map((group) => {
    const optional = required.has(group) ? '' : '?';
    return `${group}${optional}: ${groupType(group, action, operation, properties[group]!)};`;
  });
  return members.length === 0 ? 'Record<string, never>' : `{ ${members.join(' ')} }`;
}

function groupType(
  group: (typeof GROUPS)[number],
  action: CatalogAction,
  operation: string,
  schema: Record<string, unknown>,
): string {
  switch (group) {
    case 'server':
      return serverType(schema);
    case 'body': {
      const { contentType, kind } = action.request.body!;
      // Text and bytes (base64) travel as strings, whatever the document's schema says they hold.
      if (kind === 'text' || kind === 'binary') return 'string';
      return `NonNullable<${operation}['requestBody']>['content'][${quote(contentType)}]`;
    }
    case 'contentType':
      return ((schema.enum ?? []) as string[]).map(quote).join(' | ');
    case 'files': {
      const names = Object.keys((schema.properties ?? {}) as object);
      return `{ ${names.map((n) => `${quote(n)}?: { filename?: string; contentType?: string };`).join(' ')} }`;
    }
    case 'header': {
      const names = Object.keys((schema.properties ?? {}) as object).map(quote);
      return `Pick<NonNullable<${operation}['parameters']['header']>, ${names.join(' | ')}>`;
    }
    default:
      return `NonNullable<${operation}['parameters'][${quote(group)}]>`;
  }
}

function serverType(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<string, { enum?: string[] }>;
  const required = new Set((schema.required ?? []) as string[]);
  const members = Object.entries(properties).map(([name, variable]) => {
    const type = variable.enum ? variable.enum.map(quote).join(' | ') : 'string';
    return `${quote(name)}${required.has(name) ? '' : '?'}: ${type};`;
  });
  return `{ ${members.join(' ')} }`;
}

/** A single-quoted TypeScript string literal. */
export function quote(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
