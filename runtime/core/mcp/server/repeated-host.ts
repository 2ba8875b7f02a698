/**
 * RFC 9112 §3.2: a request with more than one Host header line is answered
 * 400. Node keeps the first line in `headers.host` and drops the rest, so the
 * DNS-rebinding check would judge only one of them; the raw header lines tell.
 */

/** Whether the raw header lines (`[name, value, name, value, ...]`, as Node gives them) repeat Host. */
export function repeatsHost(rawHeaders: readonly string[] | undefined): boolean {
  if (rawHeaders === undefined) return false;
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}
