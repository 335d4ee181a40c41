/**
 * Splits one CSV record (RFC 4180 quoting: `"a ""quoted"" field"`, delimiter inside quotes).
 * Returns undefined for an unterminated quote: records must not span lines, so ids never hold
 * line breaks (they could not survive the TSV export).
 */
export function splitCsvRecord(line: string, delimiter = ','): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i += 1;
      for (;;) {
        const close = line.indexOf('"', i);
        if (close < 0) return undefined;
        value += line.slice(i, close);
        if (line[close + 1] === '"') {
          value += '"';
          i = close + 2;
        } else {
          i = close + 1;
          break;
        }
      }
      if (i < line.length && line[i] !== delimiter) return undefined;
      fields.push(value);
    } else {
      const end = line.indexOf(delimiter, i);
      const stop = end < 0 ? line.length : end;
      const value = line.slice(i, stop);
      if (value.includes('"')) return undefined;
      fields.push(value);
      i = stop;
    }
    if (i >= line.length) return fields;
    i += 1; // past the delimiter
    if (i === line.length) {
      fields.push('');
      return fields;
    }
  }
}
