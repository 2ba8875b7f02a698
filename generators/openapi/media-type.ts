/**
 * Media types of request bodies: which kind of argument each takes, and the
 * order the compiler prefers them in when an operation offers several
 * (JSON, then form, then multipart, then the others).
 */
import type { BodyKind } from '../catalog/format.ts';
import { isJsonMediaType, isTextMediaType, mediaTypeEssence } from '../catalog/rules.ts';

/**
 * - `json`: any JSON value, sent as JSON text.
 * - `form`, `multipart`: an object, one field or part per property.
 * - `text`: a string, sent as it is (XML, plain text, CSV, YAML, ...).
 * - `binary`: base64 text, decoded to the bytes sent (octet streams, images, audio, PDFs, archives, ...).
 */
export function bodyKind(contentType: string): BodyKind {
  const type = mediaTypeEssence(contentType);
  if (isJsonMediaType(type)) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'multipart/form-data') return 'multipart';
  // Other multipart types take their body as text: the caller writes the parts.
  if (type.startsWith('multipart/') || isTextMediaType(type)) return 'text';
  // `*/*` and `application/*` take whatever the caller has: a structured value goes as JSON.
  if (type === '*/*' || type === 'application/*') return 'json';
  return 'binary';
}

/** Lower rank wins; equal ranks keep the document's order. `kind` is what the type's argument turned out to be. */
export function preference(contentType: string, kind: BodyKind = bodyKind(contentType)): number {
  const type = mediaTypeEssence(contentType);
  if (type === 'application/json') return 0;
  switch (kind) {
    case 'json':
      return type.includes('*') ? 7 : 1;
    case 'form':
      return 2;
    case 'multipart':
      return 3;
    case 'text':
      return 5;
    case 'binary':
      return type === 'application/octet-stream' ? 4 : 6;
  }
}

/** Why the preferred type was chosen, for the catalog. */
export function choiceReason(chosen: string, kind: BodyKind, offered: readonly string[]): string {
  if (offered.length === 1) return 'the only media type the document offers';
  const label =
    kind === 'json'
      ? 'JSON'
      : kind === 'form'
        ? 'a form'
        : kind === 'multipart'
          ? 'multipart'
          : kind === 'text'
            ? 'text'
            : mediaTypeEssence(chosen) === 'application/octet-stream'
              ? 'a raw byte stream'
              : 'raw bytes';
  return `${label}, preferred among ${offered.length} offered: JSON, then form, then multipart, then the others`;
}
