import { labelProblem } from '../../graph';
import type { LineParser, ParsedLine } from '../parsed-line';
import { idProblem } from '../validate-id';

/**
 * A label file: `id<TAB>Label[;Label…]` per line. Fields are taken verbatim, as ids are; each
 * label is checked like an id and must not be one of kgc's own (entity-labels.ts).
 */
export class LabelsParser implements LineParser {
  parse(line: string): ParsedLine {
    if (line.length === 0 || line.startsWith('#')) return { kind: 'skip' };
    const fields = line.split('\t');
    if (fields.length !== 2) {
      return {
        kind: 'invalid',
        reason: `expected 2 tab-separated columns (id, labels), found ${fields.length}`,
      };
    }
    const [entity, list] = fields as [string, string];
    const idIssue = idProblem('entity id', entity);
    if (idIssue) return { kind: 'invalid', reason: idIssue };
    const labels = [...new Set(list.split(';'))];
    for (const [i, label] of labels.entries()) {
      const problem = labelProblem(`label ${i + 1}`, label);
      if (problem) return { kind: 'invalid', reason: problem };
    }
    return { kind: 'labels', entity, labels };
  }
}
