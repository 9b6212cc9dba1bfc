/**
 * The console's CSV importer (console/src/csv.ts) reads the files spreadsheets write, whatever
 * their delimiter, and says what is wrong with a file as a whole before anything is sent
 * (issue 39: a `;`-separated file from European Excel failed with the API's field error).
 */
import { describe, expect, it } from 'vitest';
import { detectDelimiter, parseCsvTable, readSubjectRows } from '../../console/src/csv.ts';

const subjects = [
  { name: 'Jane Doe', dob: '1980-02-29', nationality: 'British' },
  { name: 'Müller, Hans', dob: '1975-06-01', nationality: 'German' },
];

function fileWith(delimiter: string, lineBreak = '\r\n', bom = false): string {
  const cell = (text: string) =>
    text.includes(delimiter) || text.includes('"') ? `"${text.replaceAll('"', '""')}"` : text;
  const lines = [
    ['name', 'dob', 'nationality'].join(delimiter),
    ...subjects.map((subject) => [subject.name, subject.dob, subject.nationality].map(cell).join(delimiter)),
  ];
  return `${bom ? '\uFEFF' : ''}${lines.join(lineBreak)}${lineBreak}`;
}

describe('the CSV importer', () => {
  it.each([
    [',', 'comma'],
    [';', 'semicolon (European Excel)'],
    ['\t', 'tab'],
  ])('reads a %j-separated file (%s) into the same subjects', (delimiter) => {
    expect(detectDelimiter(fileWith(delimiter))).toBe(delimiter);
    expect(readSubjectRows(fileWith(delimiter))).toEqual(subjects);
    expect(readSubjectRows(fileWith(delimiter, '\n', true))).toEqual(subjects);
  });

  it('reads 200 rows of a semicolon file whose cells hold commas', () => {
    const rows = Array.from({ length: 200 }, (_, i) => `"Doe, Jane ${i}";1980-01-01;Paris, France`);
    const table = parseCsvTable(`Name;DOB;Location\r\n${rows.join('\r\n')}\r\n`);
    expect(table.delimiter).toBe(';');
    expect(table.columns).toEqual(['name', 'dob', 'location']);
    expect(table.rows).toHaveLength(200);
    expect(table.rows[199]).toEqual({ name: 'Doe, Jane 199', dob: '1980-01-01', location: 'Paris, France' });
  });

  it('says which column is missing instead of a field error', () => {
    expect(() => readSubjectRows('full_name;dob\r\nJane Doe;1980-01-01\r\n')).toThrow(
      /no `name` column \(read as semicolon-separated, its columns are `full_name`, `dob`\)/,
    );
    expect(() => readSubjectRows('')).toThrow(/no `name` column/);
    expect(() => readSubjectRows('name,dob\r\n')).toThrow(/no subjects/);
  });
});
