/**
 * A person's browser, over fetch, for the upstream sign-in tests: a cookie
 * jar per origin and redirects followed by hand (so every hop is seen). It
 * opens the link `portcullis connection sign-in` printed, follows the page's
 * "Continue" link to oidc-provider, signs in and consents through its own
 * interaction forms, and lands on Portcullis's callback page. Nothing in the
 * product knows it exists.
 */
export interface Page {
  status: number;
  url: string;
  html: string;
  headers: Headers;
}

export class SignInBrowser {
  readonly #jar = new Map<string, Map<string, string>>();

  /** The cookies this browser holds for an origin (name → value). */
  cookies(origin: string): Map<string, string> {
    let jar = this.#jar.get(origin);
    if (!jar) {
      jar = new Map();
      this.#jar.set(origin, jar);
    }
    return jar;
  }

  /** One request, cookies sent and kept; no redirect followed. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<Page> {
    const target = new URL(url);
    const jar = this.cookies(target.origin);
    const headers: Record<string, string> = {};
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const reply = await fetch(target, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const cookie of reply.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) jar.delete(name);
      else jar.set(name, value);
    }
    return {
      status: reply.status,
      url: target.href,
      html: await reply.text(),
      headers: reply.headers,
    };
  }

  /** Follows redirects from `url` until a page answers. */
  async go(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<Page> {
    let page = await this.request(url, init);
    for (let hops = 0; page.status >= 300 && page.status < 400 && hops < 20; hops++) {
      const location = page.headers.get('location');
      if (!location) break;
      page = await this.request(new URL(location, page.url).href);
    }
    return page;
  }
}

/** Where the sign-in page's "Continue" button goes (the authorization URL): its GET form, filled. */
export function continueLink(page: Page): string {
  const form = /<form method="get" action="([^"]+)">([\s\S]*?)<\/form>/.exec(page.html);
  if (!form?.[1] || !form[2]?.includes('id="continue"'))
    throw new Error(
      `no Continue button on the page (HTTP ${page.status}): ${page.html.slice(0, 300)}`,
    );
  const fromHtml = (text: string) =>
    text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  const target = new URL(fromHtml(form[1]));
  for (const field of form[2].matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    target.searchParams.append(fromHtml(field[1]!), fromHtml(field[2]!));
  return target.href;
}

/** oidc-provider's own interaction form: where it posts. */
function formAction(page: Page): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(page.html)?.[1];
  if (!action)
    throw new Error(`no form on ${page.url} (HTTP ${page.status}): ${page.html.slice(0, 300)}`);
  return new URL(action.replaceAll('&amp;', '&'), page.url).href;
}

/**
 * From the authorization URL to wherever the authorization server sends the
 * browser back, signing in as `account` and consenting: the last redirect's
 * target is not fetched, so the caller decides what reaches the callback.
 */
export async function authorizeAt(
  browser: SignInBrowser,
  authorizationUrl: string,
  account = 'alice',
): Promise<string> {
  const login = await browser.go(authorizationUrl);
  let page = await browser.request(formAction(login), {
    form: { prompt: 'login', login: account, password: 'any' },
  });
  for (let step = 0; step < 10; step++) {
    const location = page.headers.get('location');
    if (page.status >= 300 && page.status < 400 && location) {
      const next = new URL(location, page.url).href;
      if (!next.startsWith(new URL(authorizationUrl).origin)) return next;
      page = await browser.request(next);
      continue;
    }
    // The consent form.
    page = await browser.request(formAction(page), { form: { prompt: 'consent' } });
  }
  throw new Error('the authorization server never sent the browser back');
}

/** Link → Portcullis's page → the authorization server → Portcullis's callback page. */
export async function signInThrough(
  browser: SignInBrowser,
  link: string,
  account = 'alice',
): Promise<Page> {
  const before = await browser.go(link);
  const back = await authorizeAt(browser, continueLink(before), account);
  return browser.go(back);
}
