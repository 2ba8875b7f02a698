/** Whether two non-empty secrets (CSRF tokens, cookies) are equal, in time that does not tell how far they agree. */
import { timingSafeEqual } from 'node:crypto';

export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
