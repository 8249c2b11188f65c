/** A CSV cell: text, a number, or nothing (an empty cell). */
export type CsvCell = string | number | null | undefined;

/**
 * One CSV record (RFC 4180) and its CRLF: a cell with a quote, a comma or a line break is quoted, its quotes doubled.
 * Text a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage return) is prefixed with a
 * quote; numbers, which a spreadsheet reads as numbers, are written as they are.
 */
export function csvLine(cells: CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
