/** Actions for the REST builder's tests: real ones from the generated catalogs, and small synthetic ones. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  Catalog,
  CatalogAction,
  RequestSpec,
  StyledParameterSpec,
} from '../../generated/catalog-format.ts';
import { createAjv } from '../../runtime/core/base/create-ajv.ts';
import type { ActionArguments } from '../../runtime/core/sources/native-rest/build-request.ts';
import { ROOT } from './fixtures.ts';

function catalogOf(provider: string): Catalog {
  return JSON.parse(
    readFileSync(join(ROOT, 'generated', provider, 'catalog.json'), 'utf8'),
  ) as Catalog;
}

/** A real action from `generated/<provider>/catalog.json`. */
export function realAction(provider: string, name: string): CatalogAction {
  const action = catalogOf(provider).actions.find((a) => a.name === name);
  if (!action) throw new Error(`${provider} has no action ${name}`);
  return action;
}

/** Fails the test when arguments would not pass the action's input schema (the gateway checks first). */
export function schemaValid(
  provider: string,
  action: CatalogAction,
  args: ActionArguments,
): ActionArguments {
  const validate = createAjv(catalogOf(provider).annotationFormats).compile(action.inputSchema);
  if (!validate(args))
    throw new Error(`test arguments fail the schema: ${JSON.stringify(validate.errors)}`);
  return args;
}

/** A synthetic action on `https://api.example.test` with the given request parts. */
export function syntheticAction(request: Partial<RequestSpec>): CatalogAction {
  return {
    name: 'fx_action',
    title: 'Fixture',
    description: 'Fixture',
    document: 'api',
    operationId: 'fixture',
    pointer: '/paths/~1x/get',
    deprecated: false,
    classification: 'read',
    classifiedBy: { rule: 'safe-method', detail: 'fixture' },
    annotations: {
      title: 'Fixture',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    request: {
      method: 'GET',
      path: '/items',
      server: { url: 'https://api.example.test', variables: {} },
      parameters: [],
      body: null,
      credential: true,
      ...request,
    },
    hints: {},
    extensions: {},
    inputSchema: { type: 'object' },
    contractHash: '0'.repeat(64),
  };
}

export function queryParameter(
  name: string,
  serialization: Partial<StyledParameterSpec> = {},
): StyledParameterSpec {
  return {
    name,
    in: 'query',
    required: false,
    style: 'form',
    explode: true,
    allowReserved: false,
    ...serialization,
  };
}

export function pathParameter(
  name: string,
  serialization: Partial<StyledParameterSpec> = {},
): StyledParameterSpec {
  return {
    name,
    in: 'path',
    required: true,
    style: 'simple',
    explode: false,
    allowReserved: false,
    ...serialization,
  };
}
