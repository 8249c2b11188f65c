import { csvLine } from './csv';

describe('csvLine', () => {
  it('quotes a cell with a quote, a comma or a line break (RFC 4180), and ends the record with CRLF', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines', 3, null, undefined])).toBe(
      'plain,"a,b","say ""hi""","two\nlines",3,,\r\n',
    );
  });

  it('prefixes text a spreadsheet would run as a formula with a quote, but not a negative number', () => {
    expect(csvLine(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', -1])).toBe("'=1+1,'+1,'-1,'@SUM(A1),'\tx,-1\r\n");
    expect(csvLine(['=HYPERLINK("x","y")'])).toBe('"\'=HYPERLINK(""x"",""y"")"\r\n');
  });
});
