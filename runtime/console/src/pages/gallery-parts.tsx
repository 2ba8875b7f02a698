/**
 * What the gallery and an app's connect form both show of an app: its mark
 * (a monogram: the console loads no outside image), and its kind with what
 * it can do, counted by class.
 */

import type { GalleryApp } from '../gallery-types.ts';
import { shown } from '../shown.ts';

/** A stable hue per app id, so an app keeps its colour from page to page. */
function hueOf(id: string): number {
  let hash = 0;
  for (const unit of id) hash = (hash * 31 + (unit.codePointAt(0) ?? 0)) % 360;
  return hash;
}

export function AppMark({ app }: { app: GalleryApp }) {
  const letter = [...app.name.trim()][0]?.toUpperCase() ?? '?';
  return (
    <span class={`gallery-mark hue-${Math.floor(hueOf(app.id) / 30)}`} aria-hidden="true">
      {shown(letter)}
    </span>
  );
}

export function KindAndCounts({ app }: { app: GalleryApp }) {
  return (
    <p class="gallery-facts">
      <span class="badge">{app.kind === 'native' ? 'Native API' : 'Curated MCP server'}</span>{' '}
      {app.counts ? (
        <span class="note">
          {app.counts.read} reads · {app.counts.write} writes · {app.counts.destructive} destructive
        </span>
      ) : (
        <span class="note">tools discovered and reviewed when connected</span>
      )}
    </p>
  );
}

/** A link the definitions give (https only); anything else is shown as text. */
export function OutsideLink({ href, children }: { href: string | undefined; children: string }) {
  if (!href?.startsWith('https://')) return null;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
      <span class="skip"> (opens in a new tab)</span>
    </a>
  );
}
