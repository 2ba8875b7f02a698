/**
 * Apps → Connect an app: the compiled providers and the curated remote MCP
 * servers, each a card with what it does, its kind and its actions by
 * class, filtered as you type (name, description); and the way to connect
 * any other MCP server by its address.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { GalleryApp } from '../gallery-types.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { useLoad } from '../use-load.ts';
import { AppMark, KindAndCounts } from './gallery-parts.tsx';

export function GalleryPage() {
  const { data, error } = useLoad(() => api<GalleryApp[]>('GET', '/gallery'), 'gallery');
  const [query, setQuery] = useState('');
  const apps = (data ?? []).filter((app) => matches(app, query));
  return (
    <>
      <p class="gallery-back">
        <a href="#/connections">← Connections</a>
      </p>
      <h1>Connect an app</h1>
      <p class="note">
        Each app's key is sealed in the gateway's vault and sent only to that app. Reads start on,
        writes and destructive actions off; a curated server's tools wait for your review first.
      </p>
      <div class="gallery-search">
        <label for="gallery-search">Search apps</label>
        <input
          id="gallery-search"
          type="search"
          autocomplete="off"
          placeholder="Name or what it does"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </div>
      <Problem error={error} />
      {data ? (
        <p class="note" role="status" aria-live="polite">
          {query.trim()
            ? `${apps.length} of ${data.length} apps match “${shown(query.trim())}”.`
            : `${data.length} apps.`}
        </p>
      ) : null}
      <ul class="gallery-grid" aria-label="Apps">
        {apps.map((app) => (
          <li key={app.id} class="gallery-card" data-app={app.id}>
            <div class="gallery-head">
              <AppMark app={app} />
              <h2>
                <a href={`#/connect/app/${encodeURIComponent(app.id)}`}>{shown(app.name)}</a>
              </h2>
            </div>
            <p class="gallery-description">{shown(app.description)}</p>
            <KindAndCounts app={app} />
            {app.connected.length > 0 ? (
              <p class="note">Connected as {shown(app.connected.join(', '))}</p>
            ) : null}
            <a class="gallery-button" href={`#/connect/app/${encodeURIComponent(app.id)}`}>
              {app.kind === 'native' || !app.remote?.signIn ? 'Add key' : 'Connect'}
              <span class="skip"> for {shown(app.name)}</span>
            </a>
          </li>
        ))}
        {data && apps.length === 0 ? (
          <li class="gallery-card gallery-empty">
            <p>No app in the gallery matches. Connect the server by its address instead.</p>
          </li>
        ) : null}
        <li class="gallery-card gallery-own" data-app="own">
          <div class="gallery-head">
            <span class="gallery-mark gallery-mark-own" aria-hidden="true">
              +
            </span>
            <h2>
              <a href="#/connect/own">Connect your own MCP server</a>
            </h2>
          </div>
          <p class="gallery-description">
            Any remote MCP server by its address: the gateway checks the link and walks you through
            what it needs. Its tools wait for your review.
          </p>
        </li>
      </ul>
    </>
  );
}

/** Every word typed is found in the app's name, id or description (any case). */
function matches(app: GalleryApp, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${app.name} ${app.id} ${app.description}`.toLowerCase();
  return words.every((word) => text.includes(word));
}
