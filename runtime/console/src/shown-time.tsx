/**
 * A moment as the console shows it: the reader's own date and time, to the
 * second, with its time zone named (an audit record read across time zones
 * must say which), inside a `<time>` whose `dateTime` and title give the
 * exact UTC instant.
 */
const FORMAT: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
};

export function ShownTime({ at }: { at: string }) {
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString(undefined, FORMAT)}
    </time>
  );
}
