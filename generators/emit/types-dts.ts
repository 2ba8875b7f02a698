/** `<document>.d.ts`: the document's types, from openapi-typescript. */
import { createRequire } from 'node:module';
import { createConfig } from '@redocly/openapi-core';
import type * as OpenApiTypescript from 'openapi-typescript';
import type { OpenApiDocument } from '../openapi/load-document.ts';
import { bannerComment } from './banner.ts';

// Loaded through require: openapi-typescript's CommonJS build pulls in TypeScript
// without Node's ESM named-export scan of its 9 MB file, which halves the load time.
const { default: openapiTS, astToString } = createRequire(import.meta.url)(
  'openapi-typescript',
) as typeof OpenApiTypescript;

/** The compiler validated the document already; openapi-typescript need not lint it again. */
const noRules = createConfig({ extends: [], rules: {} });

export async function createTypes(document: OpenApiDocument, banner: string[]): Promise<string> {
  const ast = await openapiTS(document.root as unknown as OpenApiTypescript.OpenAPI3, {
    redocly: await noRules,
    silent: true,
  });
  return `${bannerComment(banner)}\n${astToString(ast)}`;
}
