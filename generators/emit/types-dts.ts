/**
 * `<document>.d.ts`: the document's types, from openapi-typescript.
 *
 * `openapiTS()` first lints and bundles the document with redocly, which is a
 * third of its time and work the compiler has already done (validated, and the
 * pinned documents are self-contained). So this calls the public transform
 * `openapiTS()` ends with, under the context `openapiTS()` builds with its
 * default options. A test checks the output stays byte-identical to
 * `openapiTS()` on every pinned document, so an upgrade that changes the
 * defaults fails loudly.
 */
import type * as OpenApiTypescript from 'openapi-typescript';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import { requireCommonJs } from '../require-commonjs.ts';
import { bannerComment } from './banner.ts';

const { astToString, resolveRef, scanDiscriminators, transformSchema } = requireCommonJs(
  'openapi-typescript',
) as typeof OpenApiTypescript;

type Context = Parameters<typeof transformSchema>[1];

export function createTypes(document: OpenApiDocument, banner: string[]): Promise<string> {
  const schema = document.root as unknown as OpenApiTypescript.OpenAPI3;
  const context: Omit<Context, 'redoc'> = {
    additionalProperties: false,
    alphabetize: false,
    arrayLength: false,
    defaultNonNullable: true,
    discriminators: scanDiscriminators(schema, {}),
    emptyObjectsUnknown: false,
    enum: false,
    enumValues: false,
    conditionalEnums: false,
    dedupeEnums: false,
    excludeDeprecated: false,
    exportType: false,
    immutable: false,
    rootTypes: false,
    rootTypesNoSchemaPrefix: false,
    rootTypesKeepCasing: false,
    injectFooter: [],
    pathParamsAsTypes: false,
    postTransform: undefined,
    propertiesRequiredByDefault: false,
    silent: true,
    inject: undefined,
    transform: undefined,
    transformProperty: undefined,
    makePathsEnum: false,
    generatePathParams: false,
    readWriteMarkers: false,
    resolve: ($ref) => resolveRef(schema, $ref, { silent: true }),
  };
  // `redoc` is only read by openapiTS() itself, for the lint and bundle skipped here.
  const ast = transformSchema(schema, context as Context);
  return Promise.resolve(`${bannerComment(banner)}\n${astToString(ast)}`);
}
