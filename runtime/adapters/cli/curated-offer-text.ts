/**
 * How the command shows a curated definition's shortcut beside the generic
 * route: the definition's name, description, documentation, the ways it is
 * signed in to, and its support text. The connection is the generic one.
 */
import type { RemoteAuthHint } from '../../../generated/catalog-format.ts';
import type { CuratedOffer } from '../../core/catalog/curated-remotes.ts';

export function curatedOfferText(offer: CuratedOffer): string {
  const where = (source: { text: string; url?: string }) =>
    source.url ? `${source.text} (${source.url})` : source.text;
  return [
    `Curated shortcut: ${offer.name} (${offer.id}), the same connection as the generic route`,
    `  ${offer.description.replaceAll('\n', '\n  ')}`,
    `  documentation: ${offer.documentationUrl}`,
    ...offer.auth.map((hint) => `  sign-in: ${authHintText(hint, where)}`),
    `  support: ${where(offer.support)}`,
  ].join('\n');
}

function authHintText(
  hint: RemoteAuthHint,
  where: (source: { text: string; url?: string }) => string,
): string {
  switch (hint.kind) {
    case 'none':
      return 'none needed';
    case 'oauth':
      return `browser sign-in (OAuth${hint.clientRegistration ? `, ${hint.clientRegistration} client registration` : ''}${hint.scopes?.length ? `, scopes ${hint.scopes.join(' ')}` : ''})`;
    case 'bearer':
      return `${hint.label}, sent as Authorization: Bearer (--token-env VAR): ${where(hint.obtain)}`;
    case 'headers':
      return `headers ${hint.headers
        .map((h) => `${h.name} (${h.label}: ${where(h.obtain)}; --header-env ${h.name}=VAR)`)
        .join(', ')}`;
  }
}
