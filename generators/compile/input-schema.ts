/**
 * One input JSON Schema (2020-12) per action, grouping the arguments by where
 * they go so the executor can rebuild the request:
 * `{ server?, path?, query?, header?, cookie?, body? }` (the caller adds the `$defs` it reaches),
 * plus `contentType?` when the operation offers other media types for the same
 * body, and `files?` (each file part's name and type) for multipart uploads.
 */
import type { ServerTemplate } from '../catalog/format.ts';
import { type ServerVariablePlace, serverVariablePlaces } from '../catalog/rules.ts';
import type { Operation } from '../openapi/operation-object.ts';
import type { ParameterLocation } from '../openapi/parameter-object.ts';
import type { RequestBody } from '../openapi/request-body-object.ts';
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
    if (body.alternatives.length > 0) {
      properties.contentType = {
        type: 'string',
        description: `The media type to send the body as (default ${body.contentType}).`,
        enum: [body.contentType, ...body.alternatives],
        default: body.contentType,
      };
    }
    if (body.files.length > 0) properties.files = filesGroup(body);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** Per multipart file part: the filename and content type its part carries. */
function filesGroup(body: RequestBody): JsonSchema {
  return {
    type: 'object',
    description:
      "For each file part of the body: the filename its part carries (default: the part name) and its content type (default: the document's encoding, else application/octet-stream).",
    properties: Object.fromEntries(
      body.files.map((name) => {
        const documented = body.encoding?.[name]?.contentType;
        return [
          name,
          {
            type: 'object',
            properties: {
              filename: { type: 'string', minLength: 1, pattern: '^[^\\r\\n"]+$' },
              contentType: {
                type: 'string',
                pattern: '^[\\w.+-]+/[\\w.+-]+$',
                ...(documented ? { description: `The document says: ${documented}.` } : {}),
              },
            },
            additionalProperties: false,
          },
        ];
      }),
    ),
    additionalProperties: false,
  };
}

/**
 * What a server variable's place lets it hold, for a variable the document
 * leaves open: a value that begins the URL's path starts with `/` (or is
 * empty), or it would reach into the host; a path value holds no query,
 * fragment, backslash or space; a host value holds a host name's characters
 * only. The runtime refuses the same (`server-url.ts`).
 */
const PLACE_PATTERNS: Record<ServerVariablePlace, string> = {
  host: '^[A-Za-z0-9._-]+$',
  'path-start': '^(?:/[^?#\\\\\\s]*)?$',
  path: '^[^?#\\\\\\s]*$',
};

function serverVariablesGroup(
  server: ServerTemplate,
): { schema: JsonSchema; required: boolean } | undefined {
  const entries = Object.entries(server.variables).filter(([, v]) => !v.operatorOnly);
  if (entries.length === 0) return undefined;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const places = serverVariablePlaces(server);
  for (const [name, variable] of entries) {
    const pattern = variable.pattern ?? (variable.enum ? undefined : PLACE_PATTERNS[places[name]!]);
    // A variable backed by a connection setting defaults to that connection's value, not the document's.
    const description = variable.setting
      ? `${variable.description ?? name} When omitted, the connection's ${variable.setting} is used.`
      : variable.description;
    properties[name] = {
      type: 'string',
      ...(description ? { description } : {}),
      ...(variable.enum ? { enum: variable.enum } : {}),
      ...(pattern ? { pattern } : {}),
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
