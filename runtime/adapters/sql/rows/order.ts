/**
 * Lists come back in a fixed order on both engines: sorted here by UTF-16
 * code units, not by the database's collation (which differs by engine and
 * locale).
 */
export function sortedBy<T>(rows: T[], ...keys: ReadonlyArray<(row: T) => string>): T[] {
  return rows.sort((a, b) => {
    for (const key of keys) {
      const left = key(a);
      const right = key(b);
      if (left !== right) return left < right ? -1 : 1;
    }
    return 0;
  });
}
