/**
 * CSV as RFC 4180 writes it (comma, CRLF, a cell quoted when it holds a comma, quote or line
 * break), for the export files. Shared with their verifier (lib/export/verify.ts), which reads
 * them back with csv-parse.
 */

export const CRLF = '\r\n';

/** One cell, quoted when it must be. */
export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One row, with its line break. */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}${CRLF}`;
}

/**
 * Whether a spreadsheet would read the text as a formula (OWASP's CSV injection list): a cell
 * starting with `=`, `+`, `-`, `@`, a tab or a carriage return. Exports never write such a cell as
 * it is: a value that starts so is kept in the row's JSON, never in a plain column.
 */
export function looksLikeFormula(text: string): boolean {
  return /^[=+\-@\t\r]/.test(text);
}

/** A display cell: the text, or `'` before it when a spreadsheet would run it as a formula. */
export function displayCell(text: string | null | undefined): string {
  if (text === null || text === undefined) return '';
  return looksLikeFormula(text) ? `'${text}` : text;
}
