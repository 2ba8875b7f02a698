/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, ext-apps 2.0): a tool
 * names an HTML resource (`_meta.ui.resourceUri`, a `ui://` URI) that a host
 * renders in a sandboxed frame, with the origins and permissions the
 * resource's own `_meta.ui` declares.
 */
import { isPlainObject } from '../../base/json-value.ts';

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an app's HTML. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The key older hosts read beside `_meta.ui.resourceUri`. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** The extension's declaration in a server's capabilities. */
export const APPS_DECLARATION = Object.freeze({ mimeTypes: [APP_MIME_TYPE] });

export function isAppUri(uri: string): boolean {
  return uri.startsWith('ui://');
}

/** Whether a client's capabilities declare it renders apps (2025-11-25 `initialize`, 2026-07-28 `_meta`). */
export function clientTakesApps(capabilities: unknown): boolean {
  if (!isPlainObject(capabilities) || !isPlainObject(capabilities.extensions)) return false;
  return capabilities.extensions[APPS_EXTENSION] !== undefined;
}

/** What a request that names an app's page needs of its client (a refusal's `requiredCapabilities`). */
export function appsRequired(): { requiredCapabilities: Record<string, unknown> } {
  return { requiredCapabilities: { extensions: { [APPS_EXTENSION]: APPS_DECLARATION } } };
}
