/** `<document>.d.ts`: the document's types, from openapi-typescript. */
import type * as Redocly from '@redocly/openapi-core';
import type * as OpenApiTypescript from 'openapi-typescript';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import { requireCommonJs } from '../require-commonjs.ts';
import { bannerComment } from './banner.ts';

const { default: openapiTS, astToString } = requireCommonJs(
  'openapi-typescript',
) as typeof OpenApiTypescript;
const { createConfig } = requireCommonJs('@redocly/openapi-core') as typeof Redocly;

/** The compiler validated the document already; openapi-typescript need not lint it again. */
const noRules = createConfig({ extends: [], rules: {} });

export async function createTypes(document: OpenApiDocument, banner: string[]): Promise<string> {
  const ast = await openapiTS(document.root as unknown as OpenApiTypescript.OpenAPI3, {
    redocly: await noRules,
    silent: true,
  });
  return `${bannerComment(banner)}\n${astToString(ast)}`;
}
