/**
 * The console: the sign-in until a session exists, then the pages of the
 * member's workspace under one header (who is signed in, sign out) and one
 * navigation. Pages are addressed by the fragment (`#/agents`), so the
 * gateway serves one document and the back button works.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, api, SESSION_ENDED, type Session, useSessionToken } from './api.ts';
import { ActivityPage } from './pages/activity.tsx';
import { AgentsPage } from './pages/agents.tsx';
import { AuditPage } from './pages/audit.tsx';
import { ClientsPage } from './pages/clients.tsx';
import { ConnectAppPage } from './pages/connect-app.tsx';
import { GalleryPage } from './pages/connect-gallery.tsx';
import { ConnectOwnPage } from './pages/connect-own.tsx';
import { ConnectionsPage } from './pages/connections.tsx';
import { MembersPage } from './pages/members.tsx';
import { ReviewPage } from './pages/review.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { Problem } from './problem.tsx';
import { shown } from './shown.ts';

/** The navigation: each page, and the routes it is the current page for. */
const PAGES = [
  { path: '/connections', title: 'Connections', current: /^\/connections(\/|$)/ },
  // Apps → Connect an app: the gallery and every connect form under it.
  { path: '/connect', title: 'Connect an app', current: /^\/connect(\/|$)/ },
  { path: '/agents', title: 'Agents', current: /^\/agents/ },
  { path: '/clients', title: 'OAuth clients', current: /^\/clients/ },
  { path: '/members', title: 'Members', current: /^\/members/ },
  { path: '/audit', title: 'Audit log', current: /^\/audit/ },
  { path: '/activity', title: 'Activity', current: /^\/activity/ },
] as const;

function currentRoute(): string {
  const hash = decodeURIComponent(window.location.hash.replace(/^#/, ''));
  return hash.startsWith('/') ? hash : '/connections';
}

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const [route, setRoute] = useState(currentRoute());

  useEffect(() => {
    const onHash = () => setRoute(currentRoute());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    // A session that ended while the page was open: back to the sign-in, saying why.
    const ended = () => {
      useSessionToken(undefined);
      setError(new ApiError(401, 'unauthenticated', 'Your session ended: sign in again.'));
      setSession(null);
    };
    window.addEventListener(SESSION_ENDED, ended);
    return () => window.removeEventListener(SESSION_ENDED, ended);
  }, []);
  useEffect(() => {
    api<Session>('GET', '/session').then(
      (found) => {
        useSessionToken(found);
        setSession(found);
      },
      (problem) => {
        if (!(problem instanceof ApiError && problem.status === 401)) setError(problem);
        setSession(null);
      },
    );
  }, []);
  const signedIn = useCallback((found: Session) => {
    setError(undefined);
    useSessionToken(found);
    setSession(found);
  }, []);
  const signOut = useCallback(async () => {
    try {
      await api('POST', '/sign-out');
    } finally {
      useSessionToken(undefined);
      setSession(null);
    }
  }, []);
  const title = titleOf(route);
  useEffect(() => {
    document.title = `${session ? title : 'Sign in'} · Portcullis`;
  }, [title, session]);

  if (session === undefined) return <main class="narrow" aria-busy="true" />;
  if (session === null)
    return (
      <>
        <Problem error={error} />
        <SignInPage onSignedIn={signedIn} />
      </>
    );
  const canChange = session.member.role === 'owner' || session.member.role === 'operator';
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="bar">
        <span class="brand">Portcullis</span>
        <span class="who">
          {shown(session.member.name)} · {session.member.role} of{' '}
          <b>{shown(session.workspace.name)}</b>
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav class="pages" aria-label="Console">
        {PAGES.map((page) => (
          <a
            key={page.path}
            href={`#${page.path}`}
            aria-current={page.current.test(route) ? 'page' : undefined}
          >
            {page.title}
          </a>
        ))}
      </nav>
      <main id="content">
        {!canChange ? (
          <p class="note">You are a viewer: you see everything but secrets and change nothing.</p>
        ) : null}
        <Page route={route} canChange={canChange} session={session} />
      </main>
    </>
  );
}

function titleOf(route: string): string {
  if (route.startsWith('/connect/own')) return 'Connect your own MCP server';
  if (route === '/connect' || route.startsWith('/connect/app/')) return 'Connect an app';
  if (route.startsWith('/connections/')) return `Review ${route.slice('/connections/'.length)}`;
  return PAGES.find((page) => page.current.test(route))?.title ?? 'Connections';
}

function Page({
  route,
  canChange,
  session,
}: {
  route: string;
  canChange: boolean;
  session: Session;
}) {
  if (route.startsWith('/connect/own'))
    return <ConnectOwnPage connection={route.split('/')[3] || undefined} canChange={canChange} />;
  if (route.startsWith('/connections/'))
    return <ReviewPage connection={route.slice('/connections/'.length)} canChange={canChange} />;
  if (route.startsWith('/agents')) return <AgentsPage canChange={canChange} />;
  if (route === '/connect') return <GalleryPage />;
  if (route.startsWith('/connect/app/'))
    return <ConnectAppPage app={route.slice('/connect/app/'.length)} canChange={canChange} />;
  if (route.startsWith('/audit')) return <AuditPage />;
  if (route.startsWith('/clients'))
    return <ClientsPage canChange={canChange} isOwner={session.member.role === 'owner'} />;
  if (route.startsWith('/members'))
    return <MembersPage isOwner={session.member.role === 'owner'} me={session.member.name} />;
  if (route.startsWith('/activity')) return <ActivityPage />;
  return <ConnectionsPage />;
}
