/**
 * The test harness's automation of the consent page: what a person does in
 * a browser, done over HTTP. It opens the authorize URL, reads the form's
 * hidden fields and the CSRF cookie, posts the member's name and password
 * with Approve or Deny, and answers where the server redirected. Nothing in
 * the product knows it exists: it goes through the same page and form.
 */
export interface ConsentAnswer {
  member: string;
  password: string;
  decision?: 'approve' | 'deny';
  /** The permissions left checked; default: those the page checked (everything asked). */
  scopes?: readonly string[];
}

export interface ConsentResult {
  /** The redirect back to the client (with `code` or `error`). */
  location: URL;
  /** The authorize and form replies' statuses, for tests that look. */
  statuses: number[];
}

export interface ConsentPage {
  status: number;
  html: string;
  fields: Record<string, string>;
  /** The permission checkboxes the page checked. */
  checked: string[];
  cookie: string | undefined;
  headers: Headers;
}

/** GET the authorize URL: the consent page (200), or a redirect / error page. */
export async function openConsentPage(
  authorizeUrl: string | URL,
): Promise<ConsentPage | { status: number; location: string | null; html: string }> {
  const reply = await fetch(authorizeUrl, { redirect: 'manual' });
  const html = await reply.text();
  if (reply.status !== 200)
    return { status: reply.status, location: reply.headers.get('location'), html };
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = match[2]!;
  }
  const checked = [
    ...html.matchAll(/<input type="checkbox" name="scope" value="([^"]*)" checked>/g),
  ].map((match) => match[1]!);
  const cookie = reply.headers.get('set-cookie')?.split(';')[0];
  return { status: 200, html, fields, checked, cookie, headers: reply.headers };
}

export async function postConsent(
  origin: string,
  page: ConsentPage,
  answer: ConsentAnswer,
  overrides: {
    fields?: Record<string, string>;
    cookie?: string | null;
    /** More request headers (`Origin`, `X-Forwarded-For`). */
    headers?: Record<string, string>;
  } = {},
): Promise<Response> {
  const body = new URLSearchParams({
    ...page.fields,
    member: answer.member,
    password: answer.password,
    decision: answer.decision ?? 'approve',
    ...overrides.fields,
  });
  for (const scope of answer.scopes ?? page.checked) body.append('scope', scope);
  const cookie = overrides.cookie === undefined ? page.cookie : overrides.cookie;
  return fetch(`${origin}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie ? { cookie } : {}),
      ...overrides.headers,
    },
    body,
  });
}

/** The whole of it: open, sign in, approve (or deny), and the redirect back. */
export async function consent(
  authorizeUrl: string | URL,
  answer: ConsentAnswer,
): Promise<ConsentResult> {
  const page = await openConsentPage(authorizeUrl);
  if (!('fields' in page)) {
    if (page.location) return { location: new URL(page.location), statuses: [page.status] };
    throw new Error(`the authorize URL answered ${page.status}: ${page.html.slice(0, 300)}`);
  }
  const reply = await postConsent(new URL(authorizeUrl).origin, page, answer);
  const location = reply.headers.get('location');
  if (reply.status !== 303 || !location) {
    throw new Error(
      `the consent form answered ${reply.status}: ${(await reply.text()).slice(0, 300)}`,
    );
  }
  return { location: new URL(location), statuses: [200, reply.status] };
}
