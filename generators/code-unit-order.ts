/** The one sort order of everything the compiler emits: by UTF-16 code unit, never locale. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
