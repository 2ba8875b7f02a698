/** The consent page's sign-in step with the company's identity providers offered, as HTML. */
import { describe, expect, it } from 'vitest';
import { consentPage } from '../../../../../runtime/core/identity/oauth-server/consent-page.ts';

const VIEW = {
  request: 'sealed',
  csrf: 'csrf',
  clientName: 'Client',
  clientKind: 'registered' as const,
  clientId: 'client-1',
  redirectUri: 'https://client.example/callback',
  gateway: 'gw.example',
  scopes: ['tools:read'],
};

describe('the consent page with identity providers', () => {
  it.each([
    ['beside the password', false, { password: true, continue: true }],
    ['instead of the password (--only)', true, { password: false, continue: false }],
  ])('offers them %s', (_name, only, want) => {
    const page = consentPage({
      ...VIEW,
      idps: { names: ['acme', '<b>x</b>'], only, origins: ['https://login.acme.example'] },
    });
    const html = String(page.body);
    expect(html).toContain(
      '<button type="submit" name="decision" value="idp:acme" formnovalidate>Sign in with acme</button>',
    );
    expect(html).not.toContain('<b>x</b>');
    expect(html.includes('name="password"')).toBe(want.password);
    expect(html.includes('value="review"')).toBe(want.continue);
    // The form's redirect to the IdP is allowed, and nowhere else.
    expect(page.headers['Content-Security-Policy']).toContain(
      "form-action 'self' https://client.example https://login.acme.example;",
    );
  });

  it('is the password form alone without them', () => {
    const html = String(consentPage(VIEW).body);
    expect(html).not.toContain('idp:');
    expect(html).toContain('name="password"');
  });
});
