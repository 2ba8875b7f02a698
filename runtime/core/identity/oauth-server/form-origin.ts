/**
 * The forms of the member pages (the consent page, a member's own consents,
 * a sign-in link's page) are posted only from this gateway's own pages. A
 * browser names where a POST comes from in `Origin`: one that names another
 * origin, or `null` (an opaque one), is refused before the form is read. A
 * request without `Origin` (an older browser, or no browser) is left to the
 * form's CSRF token, which every one of these forms checks as well.
 */
import { problemPage } from './html-page.ts';
import type { OAuthReply } from './oauth-reply.ts';

/** The refusal when `origin` is present and not the issuer's; undefined when the form may be read. */
export function foreignOriginRefusal(
  issuer: string,
  origin: string | undefined,
): OAuthReply | undefined {
  if (origin === undefined || origin === new URL(issuer).origin) return undefined;
  return problemPage(
    403,
    'Cannot accept this form',
    'The form was sent from another site, not from this page.',
  );
}
