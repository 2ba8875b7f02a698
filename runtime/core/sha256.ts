import { hash } from 'node:crypto';

/** The sha256 of a UTF-8 string, in hex (one-shot `crypto.hash`: no Hash object per call). */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
