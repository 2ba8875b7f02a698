/**
 * A first draft of a provider's curated definition, read from one OpenAPI
 * document: its title, its server, its auth from the security schemes, and a
 * suggested verify read. A maintainer reviews it before pinning; anything the
 * draft cannot take from the document stops with the pointer and what to give.
 */
import type { ProviderDefinitionInput } from '../../specs/provider-definition.ts';
import { CompileError } from '../errors.ts';
import type { OpenApiDocument } from '../openapi/load-document.ts';

export interface ScaffoldOptions {
  /** The provider's id: its folder under specs/ and the start of every tool name. */
  provider: string;
  /** The document's id inside the provider. */
  document: string;
  /** An https server URL template that replaces the document's first server. */
  server?: string | undefined;
}

type Json = Record<string, unknown>;

/** The draft definition of `options.provider` with `document` as its only document. */
export function providerFromDocument(
  document: OpenApiDocument,
  options: ScaffoldOptions,
): ProviderDefinitionInput {
  const info = objectAt(document.root, 'info');
  const title = stringAt(info, 'title')?.trim() || options.provider;
  const server = serverOf(document, options.server);
  return {
    id: options.provider,
    name: title,
    description: firstSentence(stringAt(info, 'description')) ?? title,
    documentationUrl: documentationUrlOf(document.root, server.url),
    documents: {
      [options.document]: {
        title,
        toolPrefix: `${options.provider.replaceAll('-', '_')}_`,
        server,
      },
    },
    auth: authOf(document, title),
    verify: `${options.document}:${verifyReadOf(document)}`,
  };
}

function serverOf(document: OpenApiDocument, override: string | undefined) {
  const first = objectAt(arrayAt(document.root, 'servers')?.[0], undefined);
  const url = override ?? stringAt(first, 'url');
  if (!url || !/^https:\/\/[^/]+/.test(url)) {
    throw new CompileError('unsupported_document', 'the document names no https server', {
      place: { file: document.file, pointer: '/servers/0/url' },
      fix: "give the API's https URL: npm run scaffold -- <provider> <file> --server https://api.example.com/v1",
    });
  }
  const declared = override === undefined ? objectAt(first, 'variables') : undefined;
  const variables: Record<
    string,
    { description: string; enum?: string[]; operatorOnly?: boolean }
  > = {};
  for (const [name, value] of Object.entries(declared ?? {})) {
    const variable = objectAt(value, undefined);
    const allowed = arrayAt(variable, 'enum')?.filter((v): v is string => typeof v === 'string');
    variables[name] = {
      description: stringAt(variable, 'description') ?? `The ${name} of the server URL.`,
      ...(allowed && allowed.length > 0 ? { enum: allowed } : { operatorOnly: true }),
    };
  }
  return { url, variables };
}

/** The first security scheme the gateway can carry: an http bearer, or an API key in a header. */
function authOf(document: OpenApiDocument, title: string): ProviderDefinitionInput['auth'] {
  const schemes = objectAt(objectAt(document.root, 'components'), 'securitySchemes') ?? {};
  for (const value of Object.values(schemes)) {
    const scheme = objectAt(value, undefined);
    const type = stringAt(scheme, 'type');
    if (type === 'http' && stringAt(scheme, 'scheme')?.toLowerCase() === 'bearer')
      return {
        kind: 'bearer',
        fields: [{ name: 'token', label: `${title} token`, secret: true }],
      };
    const header = stringAt(scheme, 'name');
    if (
      type === 'apiKey' &&
      stringAt(scheme, 'in') === 'header' &&
      header &&
      /^[A-Za-z0-9-]+$/.test(header)
    )
      return {
        kind: 'header',
        header,
        fields: [{ name: 'key', label: `${title} key`, secret: true }],
      };
  }
  throw new CompileError(
    'unsupported_document',
    'no security scheme is an http bearer or an API key in a header',
    {
      place: { file: document.file, pointer: '/components/securitySchemes' },
      fix: "declare the API's bearer or header key scheme in the document, or write auth in the definition by hand",
    },
  );
}

/** The first GET that needs no parameter and no body: the read that proves a credential works. */
function verifyReadOf(document: OpenApiDocument): string {
  const paths = objectAt(document.root, 'paths') ?? {};
  for (const [path, value] of Object.entries(paths)) {
    const item = objectAt(value, undefined);
    const get = objectAt(item, 'get');
    if (!get || path.includes('{')) continue;
    const parameters = [
      ...(arrayAt(item, 'parameters') ?? []),
      ...(arrayAt(get, 'parameters') ?? []),
    ];
    if (parameters.some((p) => resolved(document, p)?.required === true)) continue;
    if (resolved(document, get.requestBody)?.required === true) continue;
    const id = stringAt(get, 'operationId');
    return id && /^\S+$/.test(id) ? id : `GET ${path}`;
  }
  throw new CompileError(
    'unsupported_document',
    'no GET operation without required parameters to verify a credential with',
    {
      place: { file: document.file, pointer: '/paths' },
      fix: 'write verify in the definition by hand: "<document>:<operationId>" of a read',
    },
  );
}

function documentationUrlOf(root: Json, serverUrl: string): string {
  const candidates = [
    stringAt(objectAt(root, 'externalDocs'), 'url'),
    stringAt(objectAt(objectAt(root, 'info'), 'contact'), 'url'),
  ];
  const https = candidates.find(
    (url) => url !== undefined && URL.canParse(url) && url.startsWith('https://'),
  );
  return https ?? new URL(serverUrl.replace(/\{[^}]*\}/g, 'x')).origin;
}

function firstSentence(text: string | undefined): string | undefined {
  const line = text?.trim().split('\n')[0]?.trim();
  if (!line) return undefined;
  const end = line.search(/\.\s/);
  return end === -1 ? line : line.slice(0, end + 1);
}

/** A parameter or request body, following one local `$ref`. */
function resolved(document: OpenApiDocument, value: unknown): Json | undefined {
  const object = objectAt(value, undefined);
  const ref = stringAt(object, '$ref');
  if (!ref?.startsWith('#/')) return object;
  let target: unknown = document.root;
  for (const part of ref.slice(2).split('/'))
    target = objectAt(target, part.replaceAll('~1', '/').replaceAll('~0', '~'));
  return objectAt(target, undefined);
}

function objectAt(value: unknown, key: string | undefined): Json | undefined {
  const inner = key === undefined ? value : objectAt(value, undefined)?.[key];
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner)
    ? (inner as Json)
    : undefined;
}

function arrayAt(value: unknown, key: string): unknown[] | undefined {
  const inner = objectAt(value, undefined)?.[key];
  return Array.isArray(inner) ? inner : undefined;
}

function stringAt(value: unknown, key: string): string | undefined {
  const inner = objectAt(value, undefined)?.[key];
  return typeof inner === 'string' ? inner : undefined;
}
