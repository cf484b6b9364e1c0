// Plain-text tables for CLI output: columns padded to their widest cell, '-' for empty cells.
// Cells hold what the sandbox stores (URLs, names, a handler's error): escaped (terminal-text.ts).
import { terminalText } from './terminal-text.js';

/** Formats rows as aligned columns under a header line. */
export function formatTable(header: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((row) =>
    row.map((cell) => (cell === null || cell === undefined || cell === '' ? '-' : terminalText(String(cell)))),
  );
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
  return [line(header), ...cells.map(line)].join('\n');
}
