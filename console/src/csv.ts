/** The delimiters a spreadsheet writes: a comma, a semicolon (Excel where the decimal mark is a comma), a tab. */
export const CSV_DELIMITERS = [',', ';', '\t'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/**
 * The file's delimiter, read from its header row (the first line that is not blank): the one of
 * `,` `;` and tab found most often outside quotes; a comma when none is (a one-column file).
 */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts = new Map<CsvDelimiter, number>(CSV_DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  let seen = false;
  for (const c of text.replace(/^\uFEFF/, '')) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) {
      if (seen) break;
    } else if (!quoted && counts.has(c as CsvDelimiter)) {
      counts.set(c as CsvDelimiter, (counts.get(c as CsvDelimiter) ?? 0) + 1);
      seen = true;
    } else if (c.trim() !== '') seen = true;
  }
  let best: CsvDelimiter = ',';
  for (const [delimiter, count] of counts) if (count > (counts.get(best) ?? 0)) best = delimiter;
  return best;
}

/** A CSV file's columns (the header row, trimmed and lower-cased) and its rows by column. */
export interface CsvTable {
  delimiter: CsvDelimiter;
  columns: string[];
  rows: Record<string, string>[];
}

/**
 * RFC 4180 CSV with the delimiter detected (detectDelimiter): quoted fields, doubled quotes, CRLF
 * or LF, a leading byte order mark dropped. The first row names the columns.
 */
export function parseCsvTable(text: string): CsvTable {
  const delimiter = detectDelimiter(text);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  const [header, ...cells] = rows.filter((r) => r.some((cell) => cell.trim() !== ''));
  const columns = (header ?? []).map((name) => name.trim().toLowerCase());
  return {
    delimiter,
    columns,
    rows: cells.map((values) =>
      Object.fromEntries(columns.map((name, i) => [name, (values[i] ?? '').trim()])),
    ),
  };
}

/** The rows of a CSV file by column (parseCsvTable). */
export function parseCsv(text: string): Record<string, string>[] {
  return parseCsvTable(text).rows;
}

const DELIMITER_NAMES: Record<CsvDelimiter, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };

/**
 * The rows of a file of subjects (a batch, clients to register): refused with a message naming
 * what is wrong with the file as a whole (no `name` column, no rows) before anything is sent, so
 * a person reads "no `name` column" rather than the API's 400 on the first subject's name.
 */
export function readSubjectRows(text: string): Record<string, string>[] {
  const table = parseCsvTable(text);
  if (!table.columns.includes('name')) {
    const found = table.columns.filter(Boolean);
    throw new Error(
      `The file has no \`name\` column (read as ${DELIMITER_NAMES[table.delimiter]}-separated${
        found.length > 0 ? `, its columns are ${found.map((c) => `\`${c}\``).join(', ')}` : ''
      }). The first row must name the columns: name (required), dob, nationality, location, alias.`,
    );
  }
  if (table.rows.length === 0) throw new Error('The file has a header row but no subjects under it.');
  return table.rows;
}

export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  const cell = (value: string | number | null | undefined) => {
    const text = value === null || value === undefined ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Offers `text` as a file download (an object URL of this page: nothing leaves the origin). */
export function download(name: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  anchor.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A subject from a CSV row: name, dob, nationality, location, alias (blank cells are not given). */
export function subjectOf(row: Record<string, string>) {
  const optional = (name: string) => (row[name] ? row[name] : null);
  return {
    name: row.name ?? '',
    dob: optional('dob'),
    nationality: optional('nationality'),
    location: optional('location'),
    alias: optional('alias'),
  };
}
