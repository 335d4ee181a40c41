import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(__dirname, '../../../src');
const CYPHER =
  /\b(MATCH|MERGE|CREATE|RETURN|UNWIND|DELETE|DETACH|REMOVE|FOREACH|YIELD)\b|\bSET\s+\w+[.[]/;

/**
 * Places where Cypher text is assembled from parts, each with why it is safe. Everything else
 * that looks like Cypher is a plain string or a template whose parts are module constants.
 */
const REVIEWED: Record<string, string> = {
  'graph/triples/export-queries.ts':
    'the WHERE is chosen among fixed fragments by two booleans; values travel as parameters',
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Templates that look like Cypher and splice something other than an UPPER_CASE constant. */
function splicedCypher(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node)) {
      const literal = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
      const constantsOnly = node.templateSpans.every(
        (span) =>
          ts.isIdentifier(span.expression) && /^[A-Z][A-Z0-9_]*$/.test(span.expression.text),
      );
      if (CYPHER.test(literal) && !constantsOnly) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${path.relative(SRC, file)}:${line}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('Cypher text is never assembled from request or data values', () => {
  it('finds no template that splices a non-constant into Cypher outside the reviewed places', () => {
    const spliced = sourceFiles(SRC).flatMap(splicedCypher);
    const unreviewed = spliced.filter((site) => !(site.replace(/:\d+$/, '') in REVIEWED));
    expect(unreviewed).toEqual([]);
  });

  it('catches a spliced name (the check itself works)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-cypher-'));
    const file = path.join(dir, 'bad.ts');
    fs.writeFileSync(file, 'const q = (name: string) => `MATCH ()-[:${name}]->() RETURN 1`;\n');
    expect(splicedCypher(file)).toHaveLength(1);
    fs.rmSync(dir, { recursive: true });
  });
});
