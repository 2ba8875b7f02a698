/**
 * Percent-encoding for URL parts. `encodeStrict` leaves only RFC 3986
 * unreserved characters (`A-Z a-z 0-9 - . _ ~`) as they are, which is stricter
 * than `encodeURIComponent` (that one keeps `! ' ( ) *`).
 * `encodeAllowReserved` also keeps RFC 3986 reserved characters, for OpenAPI's
 * `allowReserved`; `#` is still encoded so a value can never start a fragment.
 */

export function encodeStrict(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

const RESERVED_KEPT = /%(3A|2F|3F|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi;

export function encodeAllowReserved(value: string): string {
  return encodeStrict(value).replace(RESERVED_KEPT, (sequence) =>
    String.fromCharCode(Number.parseInt(sequence.slice(1), 16)),
  );
}
