/** What a change did, as the console says it (beside `Problem`, what it refused): a status line. */
import { shown } from './shown.ts';

export function Notice({ text }: { text: string }) {
  if (!text) return null;
  return (
    <p class="notice" role="status">
      {shown(text)}
    </p>
  );
}
