import { isOverlong, type SourceLine } from './line-source';
import type { LineParser, ParsedLine } from './parsed-line';

/**
 * One line as the source gave it (text, bad UTF-8, or an overlong line's length) through the
 * parser, with the same reasons the transactional ingest gives (ingest-file.ts).
 */
export function parseSourceLine(parser: LineParser, text: SourceLine): ParsedLine {
  if (text === null) return { kind: 'invalid', reason: 'invalid UTF-8 byte sequence' };
  if (isOverlong(text)) {
    return {
      kind: 'invalid',
      reason: `line is ${text.overlongBytes} bytes long; the limit is ${text.limit} bytes`,
    };
  }
  return parser.parse(text);
}
