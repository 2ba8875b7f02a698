/**
 * One input JSON Schema (2020-12) per action, grouping the arguments by where
 * they go so the executor can rebuild the request:
 * `{ server?, path?, query?, header?, cookie?, body? }` (the caller adds the `$defs` it reaches).
 */
import type { ServerTemplate } from '../catalog/format.ts';
import type { Operation } from '../openapi/operation-object.ts';
import type { ParameterLocation } from '../openapi/parameter-object.ts';
import type { JsonSchema } from '../openapi/schema-object.ts';

const LOCATIONS: ParameterLocation[] = ['path', 'query', 'header', 'cookie'];

export function inputSchema(operation: Operation, server: ServerTemplate): Record<string, unknown> {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];

  const serverGroup = serverVariablesGroup(server);
  if (serverGroup) {
    properties.server = serverGroup.schema;
    if (serverGroup.required) required.push('server');
  }
  for (const location of LOCATIONS) {
    const parameters = operation.parameters.filter((p) => p.in === location);
    if (parameters.length === 0) continue;
    const names = parameters.filter((p) => p.required).map((p) => p.name);
    properties[location] = {
      type: 'object',
      properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
      ...(names.length > 0 ? { required: names } : {}),
      additionalProperties: false,
    };
    if (names.length > 0) required.push(location);
  }
  const body = operation.requestBody;
  if (body) {
    properties.body =
      body.description && typeof body.schema === 'object' && body.schema.description === undefined
        ? { ...body.schema, description: body.description }
        : body.schema;
    if (body.required) required.push('body');
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function serverVariablesGroup(
  server: ServerTemplate,
): { schema: JsonSchema; required: boolean } | undefined {
  const entries = Object.entries(server.variables).filter(([, v]) => !v.operatorOnly);
  if (entries.length === 0) return undefined;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, variable] of entries) {
    // A variable backed by a connection setting defaults to that connection's value, not the document's.
    const description = variable.setting
      ? `${variable.description ?? name} When omitted, the connection's ${variable.setting} is used.`
      : variable.description;
    properties[name] = {
      type: 'string',
      ...(description ? { description } : {}),
      ...(variable.enum ? { enum: variable.enum } : {}),
      ...(variable.pattern ? { pattern: variable.pattern } : {}),
      ...(variable.default !== undefined && !variable.setting ? { default: variable.default } : {}),
    };
    if (variable.setting === undefined && variable.default === undefined) required.push(name);
  }
  return {
    schema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    required: required.length > 0,
  };
}
