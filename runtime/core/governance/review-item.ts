/**
 * What a reviewer approves of one pinned remote item, in the shape the
 * review rules read (`review-flags.ts`): every text an agent will read, each
 * with the field it is in (`description`, `inputSchema
 * /properties/path/description`, `arguments /0/description`), and a tool's
 * input schema's properties. Built from the pinned contract alone, so the
 * same pin always gives the same flags. No I/O.
 */
import type { Classification } from '../../../generated/catalog-format.ts';
import { isPlainObject, pointerToken } from '../base/json-value.ts';
import type {
  AppCsp,
  AppPermission,
  RemoteFeatureContract,
  RemoteToolContract,
} from '../model/remote.ts';

export type ReviewItemKind = 'tool' | RemoteFeatureContract['kind'];

export interface ReviewText {
  field: string;
  text: string;
}

/** One property of a tool's input schema (or one argument of a prompt): what it asks for. */
export interface AskedField {
  /** Where it is: `inputSchema /properties/password`, `arguments /0`. */
  field: string;
  name: string;
  title?: string;
  description?: string;
  format?: string;
  writeOnly?: boolean;
}

export interface ReviewItem {
  kind: ReviewItemKind;
  /** The server's own name for it (a tool's name, a prompt's, a resource's URI). */
  name: string;
  classification: Classification;
  texts: readonly ReviewText[];
  asks: readonly AskedField[];
  /** An MCP App's page: the origins its csp lets it reach and the permissions it asks for. */
  app?: { csp: AppCsp; permissions: readonly AppPermission[]; domain?: string };
}

/** Schema keywords whose strings an agent reads. */
const READ_KEYWORDS = new Set(['description', 'title', 'default', 'examples', 'enum', 'const']);
/** How deep a schema is walked: deeper than any real one, bounded for a hostile one. */
const MAX_DEPTH = 32;

export function toolReviewItem(
  contract: RemoteToolContract,
  classification: Classification,
): ReviewItem {
  const texts: ReviewText[] = [{ field: 'name', text: contract.name }];
  if (contract.title !== undefined) texts.push({ field: 'title', text: contract.title });
  if (contract.description !== undefined)
    texts.push({ field: 'description', text: contract.description });
  if (contract.annotations?.title !== undefined)
    texts.push({ field: 'annotations /title', text: contract.annotations.title });
  const asks: AskedField[] = [];
  walkSchema(contract.inputSchema, 'inputSchema ', texts, asks, 0);
  if (contract.outputSchema !== undefined)
    walkSchema(contract.outputSchema, 'outputSchema ', texts, [], 0);
  return { kind: 'tool', name: contract.name, classification, texts, asks };
}

export function featureReviewItem(
  feature: RemoteFeatureContract,
  classification: Classification,
): ReviewItem {
  const texts: ReviewText[] = [];
  const asks: AskedField[] = [];
  const add = (field: string, text: string | undefined) => {
    if (text !== undefined) texts.push({ field, text });
  };
  const { contract } = feature;
  if (feature.kind === 'resource') add('uri', feature.contract.uri);
  if (feature.kind === 'template') add('uriTemplate', feature.contract.uriTemplate);
  add('name', contract.name);
  add('title', contract.title);
  add('description', contract.description);
  if (feature.kind === 'prompt') {
    for (const [index, argument] of (feature.contract.arguments ?? []).entries()) {
      const at = `arguments /${index}`;
      add(`${at}/name`, argument.name);
      add(`${at}/title`, argument.title);
      add(`${at}/description`, argument.description);
      asks.push({
        field: at,
        name: argument.name,
        ...(argument.title === undefined ? {} : { title: argument.title }),
        ...(argument.description === undefined ? {} : { description: argument.description }),
      });
    }
  } else add('mimeType', feature.contract.mimeType);
  const name = feature.kind === 'resource' ? feature.contract.uri : contract.name;
  const item: ReviewItem = { kind: feature.kind, name, classification, texts, asks };
  const app = feature.kind === 'resource' ? feature.contract.app : undefined;
  if (app)
    item.app = {
      csp: app.csp,
      permissions: app.permissions,
      ...(app.domain === undefined ? {} : { domain: app.domain }),
    };
  return item;
}

function walkSchema(
  schema: unknown,
  at: string,
  texts: ReviewText[],
  asks: AskedField[],
  depth: number,
): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries())
      walkSchema(item, `${at}/${index}`, texts, asks, depth + 1);
    return;
  }
  if (!isPlainObject(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    const here = `${at}/${pointerToken(key)}`;
    if (READ_KEYWORDS.has(key)) collectStrings(value, here, texts, depth);
    if (key === 'properties' && isPlainObject(value)) {
      for (const [name, property] of Object.entries(value)) {
        const field = `${here}/${pointerToken(name)}`;
        texts.push({ field: `${field} (name)`, text: name });
        asks.push(askedOf(field, name, property));
        walkSchema(property, field, texts, asks, depth + 1);
      }
    } else if (isPlainObject(value) || Array.isArray(value)) {
      walkSchema(value, here, texts, asks, depth + 1);
    }
  }
}

function askedOf(field: string, name: string, property: unknown): AskedField {
  const asked: AskedField = { field, name };
  if (!isPlainObject(property)) return asked;
  if (typeof property.title === 'string') asked.title = property.title;
  if (typeof property.description === 'string') asked.description = property.description;
  if (typeof property.format === 'string') asked.format = property.format;
  if (property.writeOnly === true) asked.writeOnly = true;
  return asked;
}

function collectStrings(value: unknown, at: string, texts: ReviewText[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') texts.push({ field: at, text: value });
  else if (Array.isArray(value))
    for (const [index, item] of value.entries())
      collectStrings(item, `${at}/${index}`, texts, depth + 1);
}
