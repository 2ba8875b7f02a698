/** createTypes skips openapiTS()'s redocly lint and bundle; its output must not change because of it. */

import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { bannerComment } from '../../../generators/emit/banner.ts';
import { createTypes } from '../../../generators/emit/types-dts.ts';
import { loadDocument } from '../../../generators/openapi/load-document.ts';
import { PinsSchema } from '../../../specs/provider-definition.ts';
import { mirrorStore, pinnedProviders } from '../../support/pinned.ts';

const store = mirrorStore();
const documents = Object.entries(pinnedProviders()).flatMap(([provider, { pins }]) =>
  Object.entries(PinsSchema.parse(pins)).map(([document, pin]) => ({ provider, document, pin })),
);

describe.each(documents)('$provider/$document', ({ provider, document, pin }) => {
  it('has exactly the types openapiTS() writes with its default options', async () => {
    const load = async () => loadDocument(await store.read(provider, document, pin), document);
    const banner = ['banner'];
    const reference = astToString(
      await openapiTS((await load()).root as unknown as OpenAPI3, { silent: true }),
    );
    expect(await createTypes(await load(), banner)).toBe(`${bannerComment(banner)}\n${reference}`);
  });
});
