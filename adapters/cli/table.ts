/**
 * Rows as a table: for a person (a terminal), columns aligned with spaces, as `ollama list` and
 * `docker ps` print them; for a program (a pipe or a file), cells separated by one tab, so that
 * `cut -f2` or `awk -F'\t'` pick a column whatever spaces a name holds.
 */
export function formatTable(rows: readonly (readonly string[])[], aligned: boolean): string {
  if (!aligned) return rows.map((row) => `${row.join('\t')}\n`).join('');
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  // The last cell is not padded: no trailing spaces.
  return rows.map((row) => `${row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('   ')}\n`).join('');
}
