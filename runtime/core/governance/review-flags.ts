/**
 * What a reviewer should look at twice in a remote server's pinned text: the
 * one table of review rules (`REVIEW_RULES`), each with a stable id, a title
 * the surfaces show, what it looks for, and a pure `find` over the pinned
 * item (`review-item.ts`) and the workspace around it. A flag names its rule,
 * the field it is in and an excerpt of the server's text (data: every surface
 * shows it inert). A flag changes no decision by itself; with
 * `PORTCULLIS_REVIEW_FLAGGED=block` a flagged item is approved only with
 * force (`operator/actions.ts`). Flags are computed from the pin whenever it
 * is shown, never stored, so one pin always has the same flags.
 *
 * To add a rule: add its id to `ReviewRuleId` and its row to `REVIEW_RULES`
 * (a test per row in `test/runtime/core/governance/review-flags.test.ts`);
 * when it needs something of the item the rules do not read yet (an MCP App's
 * declared origins), add that to `ReviewItem` where the item is built. No
 * surface changes: each lists whatever rules fire, by id and title.
 */
import { APP_PERMISSIONS } from '../model/remote.ts';
import type { ReviewItem, ReviewText } from './review-item.ts';

export type ReviewRuleId =
  | 'model-instructions'
  | 'names-other-connection'
  | 'invisible-characters'
  | 'fetches-url'
  | 'long-text'
  | 'asks-for-secret'
  | 'app-reaches-out';

/** Whether a flagged item may be approved without force (`PORTCULLIS_REVIEW_FLAGGED`). */
export type ReviewFlaggedMode = 'show' | 'block';

export interface ReviewFlag {
  rule: ReviewRuleId;
  /** The rule's title, for a listing. */
  title: string;
  /** Where the text is: `description`, `inputSchema /properties/q/description`. */
  field: string;
  /** The server's text around what fired (a few hundred characters at most): hostile, shown inert. */
  excerpt: string;
}

/** The rest of the workspace, for rules that look for other connections' names. */
export interface ReviewContext {
  /** This item's own connection and its tools' names (references to them are its own business). */
  own: {
    connection: string;
    tools: readonly string[];
    /** Its server's origin (`https://mcp.example.com`): where an MCP App may reach unflagged. */
    origin?: string;
  };
  /** Every other connection in the workspace and the names of its tools (the server's names). */
  others: ReadonlyArray<{ connection: string; tools: readonly string[] }>;
}

interface Finding {
  field: string;
  excerpt: string;
}

export interface ReviewRule {
  id: ReviewRuleId;
  title: string;
  /** One sentence: what it looks for and why an attacker would put it there. */
  looksFor: string;
  find(item: ReviewItem, context: ReviewContext): Finding[];
}

const EXCERPT_SIDE = 60;
/** Longer than any curated server's description (Sentry's longest is about 2,000). */
export const LONG_TEXT = 4_000;
/** A run of blank space this long hides what follows it below the fold. */
const HIDING_SPACE = /(?:[ \t]*\r?\n){12,}|[ \t\u00a0]{200,}/u;

/** Phrases that speak to the model over the user's head: override, concealment, exfiltration. */
const INSTRUCTIONS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|other|system|original)\s+(?:instructions?|prompts?|rules?|messages?|directions?|guidelines?|context)\b/iu,
  /\b(?:do\s+not|don['\u2019]t|never|must\s+not)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to|show\s+(?:this|it)\s+to|notify|alert|let)\s+(?:the\s+)?(?:user|human|operator|person)\b/iu,
  /\bwithout\s+(?:telling|informing|asking|notifying|alerting|showing)\s+(?:the\s+)?(?:user|human|operator)\b/iu,
  /\b(?:keep|hide)\s+(?:this|it|these\s+instructions)\s+(?:secret|hidden|confidential|from\s+the\s+user)\b/iu,
  /<\s*\/?\s*(?:important|system|instructions?|secret|hidden|admin)\s*>/iu,
  /\b(?:your|the)\s+system\s+prompt\b/iu,
  /\bbefore\s+(?:using|calling|running|invoking)\s+(?:any|every|all)\s+(?:other\s+)?tools?\b/iu,
  /(?:~\/\.ssh|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws\/credentials|\bmcp\.json\b|\.cursor\/|(?<![\w.])\.env\b)/iu,
];

/** Invisible to a reader, read by a model: Unicode tags, zero-width and bidi controls, other format and control characters. */
const INVISIBLE =
  /[\u{e0000}-\u{e007f}\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\u180e\u061c\u00ad\ufff9-\ufffb\p{Cc}]/gu;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** Markdown or HTML that makes a client fetch a URL when it renders the text. */
const FETCHES: readonly RegExp[] = [
  /!\[[^\]\n]*\]\(\s*<?[a-z][a-z0-9+.-]*:[^)\s]*/iu,
  /!\[[^\]\n]*\]\[[^\]\n]*\]/u,
  /<\s*(?:img|image|iframe|frame|script|link|object|embed|video|audio|source|svg|meta|base|form|input|track)\b[^>]*>/iu,
  /\bsrcset\s*=|\burl\(\s*['"]?[a-z][a-z0-9+.-]*:/iu,
  /\[[^\]\n]*\]\(\s*<?[a-z][a-z0-9+.-]*:\/\/[^)\s?]*\?[^)\s]+/iu,
  /<\s*a\b[^>]*\bhref\s*=\s*['"]?[a-z][a-z0-9+.-]*:\/\/[^'"\s>?]*\?[^'"\s>]+/iu,
  /\b(?:https?|wss?):\/\/[^\s)]+\?[^\s)]*(?:\{|\$|<|%s|\[)/iu,
];

/** Words of a field name that ask for a secret. */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'credential',
  'credentials',
  'cookie',
  'mnemonic',
  'otp',
  'totp',
  'bearer',
  'authorization',
]);
/** Word pairs that ask for a secret: `api key`, `ssh key`, `private key`… */
const SECRET_PAIRS =
  /\b(?:api|ssh|private|secret|access|signing|encryption|gpg|pgp)\s+keys?\b|\bseed\s+phrase\b|\bsession\s+id\b|\bclient\s+secret\b/iu;
/** A token that pages or counts, not one that signs in. */
const NOT_A_SECRET =
  /\b(?:page|next|prev|previous|continuation|pagination|cursor|sync|resume|max|min|num|count)\s+tokens?\b|\btokens\b|\b(?:secret|token|credential|key)\s+(?:name|names|id|ids|arn|type|kind|count|prefix)\b/iu;

export const REVIEW_RULES: readonly ReviewRule[] = [
  {
    id: 'model-instructions',
    title: 'Instructions aimed at the model',
    looksFor:
      'words that speak to the model over the user\'s head: "ignore previous instructions", "do not tell the user", <IMPORTANT> tags, the system prompt, "before using any other tool", or files like ~/.ssh and mcp.json',
    find: (item) => matchesIn(item.texts, INSTRUCTIONS),
  },
  {
    id: 'names-other-connection',
    title: "Names another connection's tools",
    looksFor:
      'another connection of the workspace or one of its tools by name (`github__create_issue`, "the mail server", or `send_email` when none of this server\'s tools is named with those words), the way a server shadows or steers another\'s tools',
    find: (item, context) => namesOfOthers(item.texts, context),
  },
  {
    id: 'invisible-characters',
    title: 'Invisible characters',
    looksFor:
      'characters a reader does not see and a model reads: Unicode tags (U+E0000 block), zero-width characters, bidirectional controls, other format and control characters',
    find: (item) => invisibleIn(item.texts),
  },
  {
    id: 'fetches-url',
    title: 'Markdown or HTML that fetches a URL',
    looksFor:
      'an image, frame, script or style that a client fetches as it renders the text, or a link whose query could carry data out',
    find: (item) => matchesIn(item.texts, FETCHES),
  },
  {
    id: 'long-text',
    title: 'Very long text',
    looksFor: `a text over ${LONG_TEXT.toLocaleString('en-US')} characters, or one that hides its end after a run of blank space`,
    find: (item) =>
      item.texts.flatMap(({ field, text }) => {
        if (text.length > LONG_TEXT)
          return [
            {
              field,
              excerpt: `${text.length.toLocaleString('en-US')} characters: ${excerptAt(text, LONG_TEXT, 0)}`,
            },
          ];
        const hiding = HIDING_SPACE.exec(text);
        return hiding ? [{ field, excerpt: excerptAt(text, hiding.index, hiding[0].length) }] : [];
      }),
  },
  {
    id: 'asks-for-secret',
    title: 'Asks for a secret on a read',
    looksFor:
      'a read (a tool whose class is read, or a prompt) with an input field for a password, token, API or SSH key, or another credential',
    find: (item) =>
      item.classification !== 'read'
        ? []
        : item.asks.flatMap((asked) => {
            const said = [asked.name, asked.title ?? ''].map(words).join(' ');
            const secret =
              asked.format === 'password' ||
              (!NOT_A_SECRET.test(said) &&
                (said.split(' ').some((word) => SECRET_WORDS.has(word)) ||
                  SECRET_PAIRS.test(said)));
            return secret ? [{ field: asked.field, excerpt: asked.name }] : [];
          }),
  },
  {
    id: 'app-reaches-out',
    title: 'MCP App reaches beyond its server',
    looksFor:
      "an MCP App whose csp lets its page reach an origin other than its own server's (any origin, `*`, counts), or that asks for every permission (camera, microphone, geolocation, clipboard): a page that can send what it shows anywhere",
    find: (item, context) => {
      if (item.app === undefined) return [];
      const found: Finding[] = [];
      for (const key of CSP_KEYS)
        for (const [index, domain] of (item.app.csp[key] ?? []).entries())
          if (!isOwnOrigin(domain, context.own.origin))
            found.push({
              field: `csp /${key}/${index}`,
              excerpt: excerptAt(domain, 0, domain.length),
            });
      if (item.app.permissions.length === APP_PERMISSIONS.length)
        found.push({ field: 'permissions', excerpt: item.app.permissions.join(', ') });
      return found;
    },
  },
];

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

/** Whether a csp source names exactly the server's own origin (a bare host is taken as https). */
function isOwnOrigin(source: string, own: string | undefined): boolean {
  if (own === undefined || source.includes('*')) return false;
  try {
    return (
      new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(source) ? source : `https://${source}`).origin === own
    );
  } catch {
    return false;
  }
}

/** Every flag the rules raise on one item, in rule order then field order. */
export function reviewFlags(item: ReviewItem, context: ReviewContext): ReviewFlag[] {
  return REVIEW_RULES.flatMap((rule) =>
    rule.find(item, context).map((found) => ({ rule: rule.id, title: rule.title, ...found })),
  );
}

function matchesIn(texts: readonly ReviewText[], patterns: readonly RegExp[]): Finding[] {
  return texts.flatMap(({ field, text }) => {
    for (const pattern of patterns) {
      const match = pattern.exec(text);
      if (match) return [{ field, excerpt: excerptAt(text, match.index, match[0].length) }];
    }
    return [];
  });
}

function invisibleIn(texts: readonly ReviewText[]): Finding[] {
  return texts.flatMap(({ field, text }) => {
    for (const match of text.matchAll(INVISIBLE)) {
      const c = match[0];
      // Tabs and line breaks are layout; a zero-width joiner between two pictographs joins an emoji (👩‍💻).
      if (c === '\t' || c === '\n' || c === '\r') continue;
      if (c === '\u200d' && joinsEmoji(text, match.index)) continue;
      return [{ field, excerpt: `${excerptAt(text, match.index, c.length)}${hiddenTags(text)}` }];
    }
    return [];
  });
}

/** What Unicode tag characters spell (a model reads them as the ASCII they shadow), for the excerpt. */
function hiddenTags(text: string): string {
  let spelled = '';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    if (code >= 0xe0020 && code <= 0xe007e) spelled += String.fromCodePoint(code - 0xe0000);
  }
  return spelled === ''
    ? ''
    : ` (its Unicode tags spell: ${JSON.stringify(spelled.slice(0, 200))})`;
}

function joinsEmoji(text: string, index: number): boolean {
  const before = String.fromCodePoint(text.codePointAt(Math.max(0, index - 2)) ?? 0);
  const after = String.fromCodePoint(text.codePointAt(index + 1) ?? 0);
  return (
    (PICTOGRAPH.test(before) || PICTOGRAPH.test(text[index - 1] ?? '')) && PICTOGRAPH.test(after)
  );
}

function namesOfOthers(texts: readonly ReviewText[], context: ReviewContext): Finding[] {
  const own = new Set(context.own.tools.map((t) => t.toLowerCase()));
  // The words the server's own tools are named with: a name made only of them is its own vocabulary.
  const vocabulary = new Set(context.own.tools.flatMap(stems));
  const names: string[] = [];
  for (const other of context.others) {
    if (other.connection === context.own.connection) continue;
    const connection = escaped(other.connection);
    names.push(`${connection}__\\w+`, `${connection}\\s+(?:connection|server|mcp)`);
    for (const tool of other.tools) {
      const foreign = stems(tool).some((stem) => !vocabulary.has(stem));
      if (distinctive(tool) && foreign && !own.has(tool.toLowerCase())) names.push(escaped(tool));
    }
  }
  if (names.length === 0) return [];
  const pattern = new RegExp(`(?<![\\w-])(?:${names.join('|')})(?![\\w-])`, 'iu');
  return matchesIn(texts, [pattern]);
}

/** A tool name's words without a plural s: `list_projects` → `list`, `project`. */
function stems(name: string): string[] {
  return words(name)
    .split(' ')
    .filter((word) => word !== '')
    .map((word) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word));
}

/** A name no ordinary sentence holds: two words joined (`send_email`, `list-issues`, `getUser`). */
function distinctive(name: string): boolean {
  return name.length >= 5 && /[_.-]|[a-z][A-Z]/.test(name);
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A field name's words, lower case: `apiKey` → `api key`, `ssh_private_key` → `ssh private key`. */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * The text around what fired, bounded: a long match keeps its two ends, and a
 * run of blank space is said, not shown, so the text it hides is in view.
 */
function excerptAt(text: string, index: number, length: number): string {
  const start = whole(text, Math.max(0, index - EXCERPT_SIDE));
  const end = whole(text, Math.min(text.length, index + length + EXCERPT_SIDE));
  const matched = text.slice(index, index + length);
  const middle = /^\s+$/u.test(matched)
    ? ` [${matched.length.toLocaleString('en-US')} blank characters] `
    : matched.length > 2 * EXCERPT_SIDE
      ? `${matched.slice(0, whole(matched, EXCERPT_SIDE))}…${matched.slice(whole(matched, matched.length - EXCERPT_SIDE))}`
      : matched;
  return `${start > 0 ? '…' : ''}${text.slice(start, index)}${middle}${text.slice(index + length, end)}${end < text.length ? '…' : ''}`;
}

/** An index moved off the middle of a surrogate pair, so no excerpt holds half a character. */
function whole(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index > 0 ? index - 1 : index;
}
