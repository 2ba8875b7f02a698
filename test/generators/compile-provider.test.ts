/** A definition checked against its documents: collisions, unknown operations, unbounded hosts. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileProvider } from '../../generators/compile/compile-provider.ts';
import { CompileError } from '../../generators/errors.ts';
import { loadDocument } from '../../generators/openapi/load-document.ts';
import {
  type ProviderDefinitionInput,
  ProviderDefinitionSchema,
} from '../../specs/provider-definition.ts';
import { FIXTURES } from '../support/fixtures.ts';

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
): CompileError | 'compiled' {
  try {
    compileProvider(
      ProviderDefinitionSchema.parse(input),
      documents.map((id) => ({ id, pin, document: fixture('shared-parameters.yaml') })),
      'banner',
    );
    return 'compiled';
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
    ).toBe('compiled');
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
});
