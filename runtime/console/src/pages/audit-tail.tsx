/**
 * The audit log's live tail: events written since the page opened, newest
 * first, with the page's filters. It polls `audit/tail` every two seconds
 * with the cursor the last read returned (the store's ids, so every
 * replica's events come, whichever replica answers). The cursor trails the
 * newest events by a few seconds, so a read may answer events already shown:
 * the ids shown above the cursor are kept and skipped, and the rows are kept
 * in id order (one written earlier may show up later). It rests while paused
 * or while the tab is hidden. A screen reader hears a polite summary ("3 new
 * audit events") at most every ten seconds, never each event.
 */
import '../activity.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Problem } from '../problem.tsx';
import type { AuditEvent } from '../types.ts';
import { AuditHead, AuditRow } from './audit-row.tsx';

const POLL_MS = 2_000;
const ANNOUNCE_MS = 10_000;
/** The tail keeps this many events on the page; older ones are in the log below. */
const KEPT = 50;

interface Tail {
  events: AuditEvent[];
  cursor: number;
}

export function AuditTail({ filters, names }: { filters: string; names: Map<string, string> }) {
  const [live, setLive] = useState(true);
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [error, setError] = useState<unknown>();
  const [said, setSaid] = useState('');
  const cursor = useRef<number | undefined>(undefined);
  /** The ids shown above the cursor: a read may answer them again. */
  const shown = useRef(new Set<number>());
  const unsaid = useRef({ count: 0, lastSaid: 0 });

  // Filters changed: start again from the log's newest event.
  useEffect(() => {
    cursor.current = undefined;
    shown.current = new Set();
    setEvents([]);
  }, [filters]);

  useEffect(() => {
    if (!live) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      if (stopped) return;
      if (!document.hidden) {
        try {
          const after = cursor.current;
          const join = filters ? '&' : '?';
          const tail = await api<Tail>(
            'GET',
            `/audit/tail${filters}${after === undefined ? '' : `${join}afterId=${after}`}`,
          );
          if (stopped) return;
          setError(undefined);
          cursor.current = tail.cursor;
          const seen = shown.current;
          const added = tail.events.filter((event) => !seen.has(event.id));
          for (const event of added) seen.add(event.id);
          for (const id of seen) if (id <= tail.cursor) seen.delete(id);
          if (added.length > 0)
            setEvents((kept) => [...added, ...kept].sort((a, b) => b.id - a.id).slice(0, KEPT));
          announce(added.length);
        } catch (problem) {
          if (!stopped) setError(problem);
        }
      }
      if (!stopped) timer = setTimeout(read, POLL_MS);
    };
    const announce = (count: number) => {
      const pending = unsaid.current;
      pending.count += count;
      const now = Date.now();
      if (pending.count === 0 || now - pending.lastSaid < ANNOUNCE_MS) return;
      setSaid(`${pending.count} new audit ${pending.count === 1 ? 'event' : 'events'}`);
      pending.count = 0;
      pending.lastSaid = now;
    };
    read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [live, filters]);

  return (
    <section class="panel tail" aria-labelledby="tail-title">
      <div class="tail-head">
        <h2 id="tail-title">Live tail</h2>
        <span class={live ? 'badge health-ok' : 'badge'}>{live ? 'Live' : 'Paused'}</span>
        <button type="button" onClick={() => setLive(!live)}>
          {live ? 'Pause live tail' : 'Resume live tail'}
        </button>
      </div>
      <p class="note">
        New events with these filters appear here as they are written, newest first (checked every
        two seconds{live ? '' : '; paused'}).
      </p>
      <p class="visually-hidden" aria-live="polite" aria-atomic="true">
        {said}
      </p>
      <Problem error={error} />
      {events.length > 0 ? (
        <table class="cards" aria-label="New audit events">
          <AuditHead />
          <tbody>
            {events.map((event) => (
              <AuditRow key={event.id} event={event} names={names} />
            ))}
          </tbody>
        </table>
      ) : (
        <p class="note">No new events yet.</p>
      )}
    </section>
  );
}
