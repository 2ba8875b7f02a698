/**
 * What search knows of one action a caller may call: the tool's exact name
 * in direct mode, its connection, class, words to match, and nothing it
 * could call with. The pipeline makes one per tool it would list
 * ({@link discoverableAction} of each visible `ToolTarget`), so search finds
 * exactly what `tools/list` would show, native and remote alike.
 */
import type { CatalogAction, Classification } from '../../../generated/catalog-format.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import type { GovernedAction } from '../governance/tool-source.ts';
import type { Connection } from '../model/governance.ts';

export interface DiscoverableAction {
  /** The tool's name in direct mode (`coolify_list_applications`, `github__create_issue`). */
  readonly action: string;
  /** The connection's name. */
  readonly connection: string;
  readonly class: Classification;
  readonly title: string;
  /** One sentence: what the action does. */
  readonly summary: string;
  /** The rest of the description (the summary left out). */
  readonly description: string;
  /** JSON Schema of the arguments: its property names are searched. */
  readonly inputSchema: Record<string, unknown>;
  /** The HTTP path template of a native action (`/v1/instances/{uuid}/stop`). */
  readonly path?: string;
  /** Its document marks it deprecated: found, but after the action that replaces it. */
  readonly deprecated?: boolean;
}

/** The longest summary kept (a sentence, not a page). */
export const SUMMARY_MAX = 200;

/** An action of a connection, as search sees it. */
export function discoverableAction(
  connection: Pick<Connection, 'name' | 'provider'>,
  action: GovernedAction | CatalogAction,
): DiscoverableAction {
  const { summary, rest } = summaryOf(action.title, action.description);
  const native = 'request' in action ? action : undefined;
  return {
    action: toolNameFor(connection, action.name),
    connection: connection.name,
    class: action.classification,
    title: action.title,
    summary,
    description: rest,
    inputSchema: action.inputSchema,
    ...(native ? { path: native.request.path } : {}),
    ...(native?.deprecated ? { deprecated: true } : {}),
  };
}

/**
 * The first sentence of a description that says more than the title (the
 * compiler writes a catalog action's description as its title, a blank line,
 * then the operation's text), and the text after it.
 */
export function summaryOf(title: string, description: string): { summary: string; rest: string } {
  const paragraphs = description
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph.length > 0);
  if (paragraphs[0]?.toLowerCase() === title.trim().toLowerCase()) paragraphs.shift();
  const text = paragraphs.join('\n\n');
  const end = /[.!?](\s|$)/.exec(text);
  const cut = end ? end.index + 1 : text.length;
  const sentence = text.slice(0, cut).trim();
  const summary =
    sentence.length > SUMMARY_MAX ? `${sentence.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : sentence;
  return { summary: summary || title, rest: text.slice(cut).trim() };
}
