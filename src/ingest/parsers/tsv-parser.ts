import type { LineParser, ParsedLine } from '../parsed-line';
import { checkedEdge } from '../validate-id';

/**
 * `head<TAB>relation<TAB>tail`, the benchmark datasets' format. Fields are taken verbatim (no
 * trimming: ids may carry spaces). Blank lines are skipped.
 */
export class TsvParser implements LineParser {
  parse(line: string): ParsedLine {
    if (line.length === 0) return { kind: 'skip' };
    const fields = line.split('\t');
    if (fields.length !== 3) {
      return {
        kind: 'invalid',
        reason: `expected 3 tab-separated columns, found ${fields.length}`,
      };
    }
    return checkedEdge(fields[0] as string, fields[1] as string, fields[2] as string);
  }
}
