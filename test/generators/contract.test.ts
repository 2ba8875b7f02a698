/** Contract hashes change with what agents and the executor rely on, and only with that. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { diffCatalogs } from '../../generators/catalog/diff.ts';
import { canonicalJson } from '../../generators/catalog/rules.ts';
import { compileDocument } from '../../generators/compile/compile-document.ts';
import { catalogHash } from '../../generators/compile/compile-provider.ts';
import { planFromDocument } from '../../generators/compile/document-plan.ts';
import { loadDocument } from '../../generators/openapi/load-document.ts';
import { ROOT } from '../support/fixtures.ts';

const base = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  servers: [{ url: 'https://api.example.test' }],
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        description: 'Reads an item.',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
      post: {
        operationId: 'touchItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
  components: {
    schemas: { Item: { type: 'object', properties: { size: { type: 'integer', maximum: 10 } } } },
  },
};

type Doc = typeof base;

function catalogOf(document: Doc) {
  const loaded = loadDocument(JSON.stringify(document), 'doc.json');
  const { actions, inventory } = compileDocument(loaded, planFromDocument(loaded, 'api', 'x_'));
  return { provider: { id: 'x', name: 'X' }, hash: catalogHash('x', actions, inventory), actions };
}

function changed(edit: (doc: Doc) => void) {
  const document = structuredClone(base);
  edit(document);
  return diffCatalogs(catalogOf(base), catalogOf(document));
}

describe('contract hashes and the contract diff', () => {
  it('are stable when nothing changes, or only key order does', () => {
    const reordered = {
      components: base.components,
      paths: base.paths,
      servers: base.servers,
      info: base.info,
      openapi: base.openapi,
    };
    const diff = diffCatalogs(catalogOf(base), catalogOf(reordered as Doc));
    expect(diff).toMatchObject({
      added: [],
      removed: [],
      schemaChanged: [],
      requestChanged: [],
      unchanged: 2,
    });
    expect(diff.from).toBe(diff.to);
  });

  it('ignore documentation outside the schema', () => {
    expect(
      changed((d) => (d.paths['/items/{id}'].get.description = 'Reads one item.')).unchanged,
    ).toBe(2);
  });

  it('see a change deep inside a referenced schema', () => {
    const diff = changed((d) => (d.components.schemas.Item.properties.size.maximum = 20));
    expect(diff.schemaChanged).toEqual(['x_touch_item']);
    expect(diff.unchanged).toBe(1);
    expect(diff.from).not.toBe(diff.to);
  });

  it('see a new method as a changed request and classification', () => {
    const diff = changed((d) => {
      const { post, ...rest } = d.paths['/items/{id}'];
      (d.paths as Record<string, unknown>)['/items/{id}'] = { ...rest, delete: post };
    });
    expect(diff.classificationChanged).toEqual([
      { name: 'x_touch_item', from: 'write', to: 'destructive' },
    ]);
    expect(diff.requestChanged).toEqual(['x_touch_item']);
  });

  it('see added and removed actions', () => {
    const diff = changed((d) => (d.paths['/items/{id}'].get.operationId = 'readItem'));
    expect([diff.added, diff.removed]).toEqual([['x_read_item'], ['x_get_item']]);
  });
});

describe('canonicalJson', () => {
  it('writes exactly what the RFC 8785 reference package writes, on every action of the pinned catalogs', () => {
    for (const provider of ['unikraft', 'daytona', 'coolify']) {
      const catalog = JSON.parse(
        readFileSync(join(ROOT, 'generated', provider, 'catalog.json'), 'utf8'),
      );
      for (const action of catalog.actions)
        expect(canonicalJson(action)).toBe(canonicalize(action));
    }
  });

  it('sorts keys by code unit and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [undefined, 'é', 1e21], B: { y: undefined, x: null } })).toBe(
      '{"B":{"x":null},"a":[null,"é",1e+21],"b":1}',
    );
  });
});
