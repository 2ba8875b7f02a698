import { createHash } from 'node:crypto';

/** The sha256 of a UTF-8 string, in hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
