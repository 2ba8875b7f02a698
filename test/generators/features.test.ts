/** One behaviour per fixture, asserted directly (the golden files pin the rest). */
import { describe, expect, it } from 'vitest';
import { BASE64_PATTERN } from '../../generators/openapi/schema-object.ts';
import { actionNamed, compileFixture, group } from '../support/fixtures.ts';

describe('shared parameters', () => {
  const compiled = compileFixture('shared-parameters.yaml');
  const getItem = actionNamed(compiled, 'fx_get_item');

  it('merges path-level and operation-level parameters, the operation winning by name and location', () => {
    expect(getItem.request.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
      'path:projectId',
      'path:itemId',
      'query:verbose',
      'header:X-Trace',
    ]);
    expect(group(getItem, 'query')).toMatchObject({
      properties: { verbose: { type: 'integer', description: 'Operation-level.' } },
      required: ['verbose'],
    });
  });

  it('a path value is never null nor empty: nullable dropped, minLength 1', () => {
    // itemId is `nullable: true` in the document; the request cannot carry a null path value.
    expect(group(getItem, 'path')).toMatchObject({
      properties: {
        itemId: { type: 'string', minLength: 1 },
        projectId: { type: 'string', format: 'uuid', minLength: 1 },
      },
    });
  });

  it('ignores Authorization, Accept and Content-Type header parameters', () => {
    expect(Object.keys(group(getItem, 'header')?.properties as object)).toEqual(['X-Trace']);
  });

  it('resolves parameter $refs and reconciles path parameters with the template', () => {
    const undeclared = actionNamed(compiled, 'fx_list_undeclared');
    expect(group(undeclared, 'path')).toMatchObject({
      properties: { projectId: { format: 'uuid' }, missing: { type: 'string' } },
      required: ['projectId', 'missing'],
    });
    expect(undeclared.request.parameters.some((p) => p.name === 'ghost')).toBe(false);
  });
});

describe('request bodies', () => {
  const compiled = compileFixture('get-body.yaml');

  it('keeps JSON bodies on GET and DELETE', () => {
    expect(actionNamed(compiled, 'fx_get_instances').request.body).toEqual({
      required: false,
      contentType: 'application/json',
      kind: 'json',
      chosenBecause: 'the only media type the document offers',
    });
    expect(actionNamed(compiled, 'fx_delete_instances').request.body).toMatchObject({
      required: true,
      contentType: 'application/json',
      kind: 'json',
    });
    expect(actionNamed(compiled, 'fx_delete_instances').inputSchema.required).toEqual(['body']);
  });

  it('takes raw bytes as base64 and keeps multipart encodings', () => {
    expect(group(actionNamed(compiled, 'fx_upload_blob'), 'body')).toEqual({
      type: 'string',
      contentEncoding: 'base64',
      pattern: BASE64_PATTERN,
    });
    expect(actionNamed(compiled, 'fx_upload_blob').request.body?.kind).toBe('binary');
    const form = actionNamed(compiled, 'fx_submit_form');
    expect(form.request.body).toMatchObject({
      contentType: 'multipart/form-data',
      kind: 'multipart',
      encoding: { file: { contentType: 'image/png' } },
      offered: ['multipart/form-data', 'application/xml'],
      files: ['file'],
    });
    expect(group(form, 'files')).toMatchObject({ properties: { file: { type: 'object' } } });
    expect(group(form, 'body')).toMatchObject({
      properties: { file: { contentEncoding: 'base64' } },
    });
  });

  it('prefers a form body to plain text, and says why in the catalog', () => {
    expect(actionNamed(compiled, 'fx_log_in').request.body).toMatchObject({
      contentType: 'application/x-www-form-urlencoded',
      offered: ['text/plain', 'application/x-www-form-urlencoded'],
      chosenBecause:
        'a form, preferred among 2 offered: JSON, then form, then multipart, then the others',
    });
    // Plain text takes another argument (a string): it is no alternative to the form.
    expect(actionNamed(compiled, 'fx_log_in').request.body?.alternatives).toBeUndefined();
  });
});

describe('bodies that are not JSON (binary-bodies.yaml)', () => {
  const compiled = compileFixture('binary-bodies.yaml');

  it('an XML body is a string, the document schema kept as contentSchema, text/xml an alternative', () => {
    const zone = actionNamed(compiled, 'fx_create_hosted_zone');
    expect(group(zone, 'body')).toMatchObject({
      type: 'string',
      contentMediaType: 'application/xml',
      contentSchema: { $ref: '#/$defs/CreateHostedZoneRequest' },
    });
    expect(zone.request.body).toMatchObject({ kind: 'text', alternatives: ['text/xml'] });
    expect(group(zone, 'contentType')).toMatchObject({
      enum: ['application/xml', 'text/xml'],
      default: 'application/xml',
    });
  });

  it('raw bytes in several media types: base64, the first offered chosen, the others alternatives', () => {
    const media = actionNamed(compiled, 'fx_upload_media');
    expect(media.request.body).toMatchObject({
      kind: 'binary',
      contentType: 'image/png',
      // text/plain with `format: binary` is bytes too (WhatsApp's media upload says so).
      alternatives: ['image/jpeg', 'audio/ogg', 'text/plain'],
    });
    expect(group(media, 'body')).toMatchObject({ contentEncoding: 'base64' });
  });

  it('a form or multipart body whose schema is not an object is passed over, or inventoried', () => {
    expect(actionNamed(compiled, 'fx_upload_archive').request.body).toMatchObject({
      kind: 'binary',
      contentType: 'application/zip',
      offered: ['multipart/form-data', 'application/zip'],
    });
    expect(compiled.inventory).toContainEqual(
      expect.objectContaining({
        operationId: 'BulkUpload',
        reason: 'invalid_operation',
        pointer: '/paths/~1bulk/post/requestBody/content/multipart~1form-data/schema',
      }),
    );
  });

  it('multipart file parts, single and listed, are named in the catalog', () => {
    expect(actionNamed(compiled, 'fx_convert').request.body?.files).toEqual([
      'attachments',
      'file',
    ]);
  });
});

describe('circular $ref', () => {
  const compiled = compileFixture('circular-ref.yaml');

  it('becomes $defs that refer to themselves, each converted once', () => {
    const tree = actionNamed(compiled, 'fx_create_tree').inputSchema as {
      $defs: Record<string, unknown>;
    };
    expect(Object.keys(tree.$defs)).toEqual(['Node']);
    expect(tree.$defs.Node).toMatchObject({
      properties: { children: { items: { $ref: '#/$defs/Node' } } },
    });
  });

  it('carries every definition a mutual cycle reaches, through aliases', () => {
    const pair = actionNamed(compiled, 'fx_put_pair').inputSchema as {
      $defs: Record<string, unknown>;
    };
    expect(Object.keys(pair.$defs)).toEqual(['A', 'Alias', 'B', 'Node']);
    expect(pair.$defs.B).toMatchObject({ type: ['object', 'null'] });
  });
});

describe('parameter style and explode', () => {
  const search = actionNamed(compileFixture('style-explode.yaml'), 'fx_search');
  const serialization = Object.fromEntries(
    search.request.parameters.map(({ name, in: _, required: __, ...rest }) => [name, rest]),
  );

  it('records each parameter serialization, with the defaults OpenAPI gives', () => {
    expect(serialization).toEqual({
      ids: { style: 'label', explode: true, allowReserved: false },
      tags: { style: 'form', explode: false, allowReserved: false },
      pipes: { style: 'pipeDelimited', explode: false, allowReserved: false },
      filter: { style: 'deepObject', explode: true, allowReserved: false },
      raw: { style: 'form', explode: true, allowReserved: true },
      where: { contentType: 'application/json' },
      session: { style: 'form', explode: true, allowReserved: false },
      'X-Request-Id': { style: 'simple', explode: false, allowReserved: false },
    });
  });

  it('rewrites the 3.0 boolean exclusiveMinimum as a 2020-12 bound', () => {
    expect(group(search, 'query')).toMatchObject({
      properties: { where: { properties: { age: { exclusiveMinimum: 0 } } } },
    });
  });
});

describe('OpenAPI 3.1', () => {
  const compiled = compileFixture('openapi-31.yaml');
  const body = group(actionNamed(compiled, 'fx_create_thing'), 'body') as {
    properties: Record<string, unknown>;
    required: string[];
  };

  it('keeps type arrays, const, examples, numeric exclusive bounds and $ref siblings', () => {
    expect(body.properties.name).toEqual({ type: ['string', 'null'], examples: ['widget'] });
    expect(body.properties.kind).toEqual({ const: 'thing' });
    expect(body.properties.size).toEqual({
      type: 'integer',
      exclusiveMinimum: 0,
      exclusiveMaximum: 100,
    });
    expect(body.properties.ref).toEqual({
      $ref: '#/$defs/Label',
      description: 'A 3.1 $ref with a sibling',
    });
    expect(body.required).toEqual(['name']);
  });

  it('drops what ajv strict mode would reject: bad patterns, unknown keywords, wrong shapes', () => {
    expect(body.properties['bad-pattern']).toEqual({ type: 'string' });
    expect(body.properties['wrong-shapes']).toEqual({});
  });

  it('keeps nonstandard formats as annotations and lists them', () => {
    expect([...compiled.annotationFormats]).toEqual(['label-code']);
  });

  it('inventories webhooks and offers server variables as arguments', () => {
    expect(compiled.inventory.map((e) => e.reason)).toEqual(['webhook']);
    expect(group(actionNamed(compiled, 'fx_create_thing'), 'server')).toMatchObject({
      properties: { region: { enum: ['eu', 'us'], default: 'eu' } },
    });
  });
});

describe('operations without an operationId', () => {
  const names = compileFixture('no-operation-id.yaml')
    .actions.map((a) => a.name)
    .sort();

  it('are named from method and path, deterministic and at most 64 characters', () => {
    expect(names).toEqual([
      'fx_get_v1_organizations_by_org_id_members',
      'fx_get_v1_organizations_by_org_id_members_by_member_id_6e87029a',
      'fx_get_v1_status',
      'fx_post_v1_organizations_by_org_id_members',
    ]);
    for (const name of names) expect(name).toMatch(/^[a-z0-9_]{1,64}$/);
  });
});

describe('vendor extensions', () => {
  const readiness = actionNamed(compileFixture('vendor-extensions.yaml'), 'fx_readiness');

  it('keeps operation extensions on the action and out of the input schema', () => {
    expect(readiness.extensions).toEqual({
      'x-readiness': true,
      'x-rate-limit': { perMinute: 60 },
    });
    expect(group(readiness, 'query')).toEqual({
      type: 'object',
      properties: { depth: { type: 'integer' } },
      additionalProperties: false,
    });
  });
});

describe('a document with errors in some operations', () => {
  const compiled = compileFixture('spec-error.yaml');

  it('compiles the rest and inventories each broken operation with its reason and JSON pointer', () => {
    expect(compiled.actions.map((a) => a.name).sort()).toEqual(['fx_fine', 'fx_subscribe']);
    expect(compiled.inventory.map((e) => [e.reason, e.pointer])).toEqual([
      ['unresolvable_ref', '/paths/~1dangling/post/requestBody/content/application~1json/schema'],
      ['external_ref', '/paths/~1elsewhere/get/parameters/0'],
      ['invalid_operation', '/paths/~1nowhere/get/parameters/0/in'],
      ['event_stream', '/paths/~1events/get'],
      [
        'callback',
        '/paths/~1subscriptions/post/callbacks/onEvent/{$request.body#~1callbackUrl}/post',
      ],
      ['unresolvable_ref', '/paths/~1loop'],
    ]);
    expect(compiled.operations).toBe(7);
  });
});
