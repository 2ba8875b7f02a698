/**
 * An MCP App's page as the review page shows it, plainly: the origins its
 * csp lets it reach, directive by directive (none: no network at all), the
 * permissions it asks the host for, its sandbox domain, and the sha256 of
 * the page pinned. Every string is the server's: shown inert, never a link.
 */
import { shown } from '../shown.ts';
import type { AppReview } from '../types.ts';

const DIRECTIVES = [
  ['connectDomains', 'Connects to (fetch, WebSocket)'],
  ['resourceDomains', 'Loads scripts, images, styles and fonts from'],
  ['frameDomains', 'Frames pages from'],
  ['baseUriDomains', 'Takes its base URI from'],
] as const;

const PERMISSIONS: Record<string, string> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'location',
  clipboardWrite: 'writing to the clipboard',
};

export function AppReviewPanel({ app, item }: { app: AppReview; item: string }) {
  const reaches = DIRECTIVES.filter(([key]) => (app.csp[key] ?? []).length > 0);
  return (
    <section class="app-review" aria-label={`MCP App of ${shown(item)}`}>
      <p class="app-head">
        <b>MCP App.</b> A host shows this page to the person in a sandboxed frame.
      </p>
      <dl>
        <dt>May reach</dt>
        <dd>
          {reaches.length === 0 ? (
            'No origin: the page has no network.'
          ) : (
            <ul>
              {reaches.map(([key, label]) => (
                <li key={key} data-directive={key}>
                  {label}:{' '}
                  {(app.csp[key] ?? []).map((domain, index) => (
                    <span key={index}>
                      {index > 0 ? ', ' : ''}
                      <code class="origin">{shown(domain)}</code>
                    </span>
                  ))}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Asks for</dt>
        <dd data-permissions={app.permissions.join(' ')}>
          {app.permissions.length === 0
            ? 'No permission.'
            : app.permissions.map((p) => PERMISSIONS[p] ?? p).join(', ')}
        </dd>
        {app.domain !== undefined ? (
          <>
            <dt>Sandbox domain</dt>
            <dd>
              <code>{shown(app.domain)}</code>
            </dd>
          </>
        ) : null}
        <dt>Page</dt>
        <dd>
          sha256 <code class="digest">{app.contentSha256}</code>
        </dd>
      </dl>
    </section>
  );
}
