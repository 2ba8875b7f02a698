import { describe, expect, it } from 'vitest';
import { CompileError } from '../../../generators/errors.ts';
import { loadDocument } from '../../../generators/openapi/load-document.ts';

function caught(run: () => unknown): CompileError {
  try {
    run();
  } catch (error) {
    if (error instanceof CompileError) return error;
    throw error;
  }
  throw new Error('expected a CompileError');
}

describe('loadDocument', () => {
  it('reads YAML 1.2: an explicit !!float on an integer, timestamps kept as strings', () => {
    const { root, version } = loadDocument(
      [
        'openapi: 3.0.3',
        'components:',
        '  schemas:',
        '    Port: { type: integer, maximum: !!float 65535, format: uint64 }',
        '    When: { type: string, example: 2024-01-02T03:04:05Z }',
        '    Yes: { type: string, example: yes }',
      ].join('\n'),
      'quirks.yaml',
    );
    expect(version).toBe('3.0');
    expect(root).toMatchObject({
      components: {
        schemas: {
          Port: { maximum: 65535, format: 'uint64' },
          When: { example: '2024-01-02T03:04:05Z' },
          Yes: { example: 'yes' },
        },
      },
    });
  });

  it('reads JSON, with or without a byte order mark', () => {
    expect(loadDocument('\ufeff{"openapi":"3.1.0","paths":{}}', 'doc.json').version).toBe('3.1');
  });

  it('names the file, line and column of a syntax error', () => {
    const error = caught(() =>
      loadDocument('openapi: 3.0.3\npaths:\n  /x: [unclosed\n', 'broken.yaml'),
    );
    expect(error.code).toBe('document_unreadable');
    expect(error.place).toMatchObject({ file: 'broken.yaml', line: 4 });
  });

  it('refuses duplicate keys rather than guessing which one wins', () => {
    expect(caught(() => loadDocument('openapi: 3.0.3\nopenapi: 3.1.0\n', 'dup.yaml')).code).toBe(
      'document_unreadable',
    );
  });

  it('refuses Swagger 2.0 and documents that are not objects, naming what to change', () => {
    const swagger = caught(() => loadDocument('swagger: "2.0"\n', 'old.yaml'));
    expect(swagger.code).toBe('unsupported_document');
    expect(swagger.place.pointer).toBe('/swagger');
    expect(swagger.fix).toMatch(/OpenAPI 3/);
    expect(caught(() => loadDocument('- a\n- b\n', 'list.yaml')).code).toBe('document_unreadable');
  });
});
