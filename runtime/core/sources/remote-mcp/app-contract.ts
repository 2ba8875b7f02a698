/**
 * An MCP App as Portcullis pins it: a tool's `_meta.ui` (which `ui://`
 * resource it names), and that resource's page, read at discovery: the
 * sha256 of its content and the origins (`csp`) and permissions its
 * `_meta.ui` declares (the content item's, else the list entry's, as hosts
 * read them). What the server sends is hostile: only the known keys of the
 * known shapes are kept, each bounded.
 */
import { createHash } from 'node:crypto';
import { hashJson } from '../../../../generated/catalog-rules.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { isAppUri, LEGACY_RESOURCE_URI_KEY } from '../../mcp/wire/apps.ts';
import {
  APP_PERMISSIONS,
  type AppContract,
  type AppCsp,
  type ToolApp,
} from '../../model/remote.ts';

const URI_MAX = 2_048;
const DOMAINS_MAX = 100;
const DOMAIN_MAX = 512;
const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

/** The app a tools/list entry names, when it names a `ui://` one. */
export function toolAppOf(meta: unknown): ToolApp | undefined {
  if (!isPlainObject(meta)) return undefined;
  const ui = isPlainObject(meta.ui) ? meta.ui : {};
  const uri = typeof ui.resourceUri === 'string' ? ui.resourceUri : meta[LEGACY_RESOURCE_URI_KEY];
  if (typeof uri !== 'string' || !isAppUri(uri) || uri.length > URI_MAX) return undefined;
  const app: ToolApp = { resourceUri: uri };
  if (Array.isArray(ui.visibility))
    app.visibility = ui.visibility.filter((v): v is string => v === 'model' || v === 'app');
  return app;
}

/** The pinned app of a `resources/read` result's first content, or why it cannot be pinned. */
export function appContractOf(
  read: Record<string, unknown>,
  listEntry: unknown,
): AppContract | { problem: string } {
  const content = Array.isArray(read.contents) ? read.contents[0] : undefined;
  if (!isPlainObject(content)) return { problem: 'its resources/read has no contents' };
  const body =
    typeof content.text === 'string'
      ? content.text
      : typeof content.blob === 'string'
        ? content.blob
        : undefined;
  if (body === undefined) return { problem: 'its resources/read content has no text or blob' };
  const listed = isPlainObject(listEntry) && isPlainObject(listEntry._meta) ? listEntry._meta : {};
  const meta =
    isPlainObject(content._meta) && isPlainObject(content._meta.ui)
      ? content._meta.ui
      : isPlainObject(listed.ui)
        ? listed.ui
        : {};
  const app: AppContract = {
    contentSha256: createHash('sha256').update(body, 'utf8').digest('hex'),
    csp: cspOf(meta.csp),
    permissions: permissionsOf(meta.permissions),
  };
  if (typeof content.mimeType === 'string') app.mimeType = content.mimeType.slice(0, 256);
  if (typeof meta.domain === 'string') app.domain = meta.domain.slice(0, DOMAIN_MAX);
  return app;
}

/** The hash a served read must match: the pinned app's whole. */
export function appHashOf(app: AppContract): string {
  return hashJson(app);
}

function cspOf(value: unknown): AppCsp {
  const csp: AppCsp = {};
  if (!isPlainObject(value)) return csp;
  for (const key of CSP_KEYS) {
    const domains = value[key];
    if (!Array.isArray(domains)) continue;
    csp[key] = domains
      .filter((d): d is string => typeof d === 'string')
      .slice(0, DOMAINS_MAX)
      .map((d) => d.slice(0, DOMAIN_MAX));
  }
  return csp;
}

function permissionsOf(value: unknown): AppContract['permissions'] {
  if (!isPlainObject(value)) return [];
  return APP_PERMISSIONS.filter((name) => value[name] !== undefined && value[name] !== false);
}

/** Every origin the app declares it may reach, each once, in the csp's order. */
export function appOrigins(app: AppContract): string[] {
  return [...new Set(CSP_KEYS.flatMap((key) => app.csp[key] ?? []))];
}
