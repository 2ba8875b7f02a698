/** A definition checked against its documents: collisions, unknown operations, unbounded hosts. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../../generators/catalog/format.ts';
import { compileProvider } from '../../../generators/compile/compile-provider.ts';
import { CompileError } from '../../../generators/errors.ts';
import { loadDocument } from '../../../generators/openapi/load-document.ts';
import {
  type ProviderDefinitionInput,
  ProviderDefinitionSchema,
} from '../../../specs/provider-definition.ts';
import { FIXTURES } from '../../support/fixtures.ts';

const pin = {
  repo: 'example/specs',
  commit: 'a'.repeat(40),
  path: 'x.yaml',
  sha256: 'b'.repeat(64),
};
const fixture = (file: string) => loadDocument(readFileSync(join(FIXTURES, file)), file);

function definition(overrides: Partial<ProviderDefinitionInput> = {}): ProviderDefinitionInput {
  return {
    id: 'example',
    name: 'Example',
    description: 'An example provider.',
    documentationUrl: 'https://docs.example.test',
    documents: {
      one: {
        title: 'One',
        toolPrefix: 'example_',
        server: { url: 'https://api.example.test', variables: {} },
      },
      two: {
        title: 'Two',
        toolPrefix: 'example_',
        server: { url: 'https://api.example.test', variables: {} },
      },
    },
    auth: { kind: 'bearer', fields: [{ name: 'token', label: 'Token', secret: true }] },
    verify: 'one:getItem',
    ...overrides,
  };
}

function compile(
  input: ProviderDefinitionInput,
  documents = ['one', 'two'],
  file = 'shared-parameters.yaml',
): CompileError | Catalog {
  try {
    return compileProvider(
      ProviderDefinitionSchema.parse(input),
      documents.map((id) => ({ id, pin, document: fixture(file) })),
      'banner',
    );
  } catch (error) {
    if (error instanceof CompileError) return error;
    throw error;
  }
}

describe('compileProvider', () => {
  it('refuses two operations that compile to the same tool name, naming both', () => {
    const error = compile(definition());
    expect(error).toBeInstanceOf(CompileError);
    expect((error as CompileError).code).toBe('tool_name_collision');
    expect((error as CompileError).message).toContain(
      'one#/paths/~1projects~1{projectId}~1items~1{itemId}/get',
    );
    expect((error as CompileError).message).toContain(
      'two#/paths/~1projects~1{projectId}~1items~1{itemId}/get',
    );
  });

  it('compiles once the documents have their own prefixes', () => {
    const documents = definition().documents!;
    expect(
      compile(
        definition({
          documents: { ...documents, two: { ...documents.two!, toolPrefix: 'example_two_' } },
        }),
      ),
    ).toHaveProperty('actions');
  });

  it('refuses a tool prefix with a doubled underscore: a name with `__` is <connection>__<tool>', () => {
    const documents = definition().documents!;
    const parsed = ProviderDefinitionSchema.safeParse(
      definition({ documents: { one: { ...documents.one!, toolPrefix: 'example__' } } }),
    );
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([
      ['documents', 'one', 'toolPrefix'],
    ]);
  });

  it("refuses a tool prefix that does not start with the provider's id", () => {
    const documents = definition().documents!;
    const error = compile(
      definition({ documents: { one: { ...documents.one!, toolPrefix: 'coolify_' } } }),
      ['one'],
    );
    expect((error as CompileError).code).toBe('invalid_definition');
    expect((error as CompileError).place.pointer).toBe('/documents/one/toolPrefix');
  });

  it('refuses a definition naming an operation no document has', () => {
    const error = compile(
      definition({ classification: { 'one:nope': { classification: 'read', why: 'x' } } }),
      ['one'],
    );
    expect((error as CompileError).code).toBe('unknown_operation');
    expect((error as CompileError).place.pointer).toBe('/classification');
  });

  it('refuses a verify action that is not a read', () => {
    const error = compile(
      definition({
        verify: 'one:getItem',
        classification: { 'one:getItem': { classification: 'write', why: 'x' } },
      }),
      ['one'],
    );
    expect((error as CompileError).code).toBe('invalid_definition');
    expect((error as CompileError).place.pointer).toBe('/verify');
  });

  it('refuses a host variable without allowed values: the credential could go anywhere', () => {
    const unbounded = definition({
      documents: {
        one: {
          title: 'One',
          toolPrefix: 'example_',
          server: {
            url: 'https://{tenant}.example.test',
            variables: { tenant: { description: 'Tenant.' } },
          },
        },
      },
    });
    const error = compile(unbounded, ['one']);
    expect((error as CompileError).code).toBe('invalid_definition');
    expect((error as CompileError).place.pointer).toBe('/documents/one/server/variables/tenant');
  });

  it('takes a base path right after the host, bounded by values that start with /', () => {
    const basePath = (variables: Record<string, { description: string; enum?: string[] }>) =>
      compile(
        definition({
          documents: {
            one: {
              title: 'One',
              toolPrefix: 'example_',
              server: { url: 'https://api.example.test{basePath}', variables },
            },
          },
        }),
        ['one'],
      );
    const catalog = basePath({ basePath: { description: 'Base.', enum: ['/v1', '/v2'] } });
    expect(catalog).not.toBeInstanceOf(CompileError);
    expect((catalog as Catalog).hosts).toEqual({ fixed: ['api.example.test'], settings: [] });
    // Without values that start the path, it is in the host and unbounded.
    const error = basePath({ basePath: { description: 'Base.' } });
    expect((error as CompileError).code).toBe('invalid_definition');
    expect((error as CompileError).place.pointer).toBe('/documents/one/server/variables/basePath');
  });

  describe('an operation of a pinned document that does not compile', () => {
    // spec-error.yaml: /dangling refers to a schema that is not there, /elsewhere to another file,
    // /nowhere has a parameter "in: body"; /events (a stream) and the callback are left out on purpose.
    const curated = (exclude: Record<string, string>) =>
      definition({ verify: 'one:fine', exclude });

    it('is an error naming the document, the JSON pointer and what to change', () => {
      const error = compile(curated({}), ['one'], 'spec-error.yaml');
      expect(error).toBeInstanceOf(CompileError);
      expect((error as CompileError).code).toBe('operation_not_compiled');
      expect((error as CompileError).place).toEqual({
        file: 'example/specs@aaaaaaaaaaaa:x.yaml',
        pointer: '/paths/~1dangling/post/requestBody/content/application~1json/schema',
      });
      expect((error as CompileError).message).toContain('POST /dangling (dangling)');
      expect((error as CompileError).fix).toContain('"one:dangling"');
      expect((error as CompileError).fix).toContain('specs/example/provider.ts');
    });

    it('names the next one once the first is excluded', () => {
      const error = compile(
        curated({ 'one:dangling': 'its schema is missing upstream' }),
        ['one'],
        'spec-error.yaml',
      );
      expect((error as CompileError).code).toBe('operation_not_compiled');
      expect((error as CompileError).message).toContain('GET /elsewhere');
    });

    it("is inventoried as excluded, with the definition's reason and the failure, once listed", () => {
      const catalog = compile(
        curated({
          'one:dangling': 'its schema is missing upstream',
          'one:elsewhere': 'refers to another file',
          'one:nowhere': 'an OpenAPI 2 parameter',
          'one:* /loop': 'a path item that refers to itself',
        }),
        ['one'],
        'spec-error.yaml',
      ) as Catalog;
      expect(catalog.actions.map((a) => a.name)).toEqual(['example_fine', 'example_subscribe']);
      const dangling = catalog.inventory.find((e) => e.operationId === 'dangling');
      expect(dangling).toMatchObject({ reason: 'excluded_by_definition' });
      expect(dangling?.detail).toMatch(
        /^its schema is missing upstream \(it does not compile: .*DoesNotExist/,
      );
      expect(catalog.inventory.map((e) => e.reason).sort()).toEqual([
        'callback',
        'event_stream',
        'excluded_by_definition',
        'excluded_by_definition',
        'excluded_by_definition',
        'excluded_by_definition',
      ]);
    });
  });
});
