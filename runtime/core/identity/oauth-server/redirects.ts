/** The authorization response (RFC 6749 §4.1.2, RFC 9207): parameters added to the redirect URI. */
export function authorizationResponseUrl(
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}
