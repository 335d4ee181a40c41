import type { LineParser, ParsedLine } from '../parsed-line';
import { labelProblem } from '../../graph';
import { checkedEdge, idProblem } from '../validate-id';

type Term = { kind: 'iri' | 'blank' | 'literal'; value: string; end: number };

class NtSyntaxError extends Error {}

const ESCAPES: Record<string, string> = {
  t: '\t',
  b: '\b',
  n: '\n',
  r: '\r',
  f: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
};

/**
 * N-Triples, one triple per line. IRI and blank-node terms become entity ids: the IRI without
 * its angle brackets (`<http://x/a>` is `http://x/a`), a blank node as written (`_:b1`). The
 * predicate IRI is the relation name. A literal object does not make an edge: it sets a
 * property on the subject entity, keyed by the predicate IRI, valued by the literal's lexical
 * form (language tag and datatype dropped). docs/ingest.md states the rule.
 */
/** Properties the product owns: a literal may not overwrite an entity's `id`. */
const RESERVED_PROPERTY_KEYS = new Set(['id']);

export class NTriplesParser implements LineParser {
  parse(line: string): ParsedLine {
    let i = skipSpace(line, 0);
    if (i >= line.length || line[i] === '#') return { kind: 'skip' };
    try {
      const subject = readTerm(line, i, 'subject');
      if (subject.kind === 'literal') throw new NtSyntaxError('the subject cannot be a literal');
      const predicate = readTerm(line, skipSpace(line, subject.end), 'predicate');
      if (predicate.kind !== 'iri') throw new NtSyntaxError('the predicate must be an IRI');
      const object = readTerm(line, skipSpace(line, predicate.end), 'object');
      i = skipSpace(line, object.end);
      if (line[i] !== '.') throw new NtSyntaxError("expected '.' after the object");
      i = skipSpace(line, i + 1);
      if (i < line.length && line[i] !== '#') throw new NtSyntaxError("unexpected text after '.'");
      if (object.kind === 'literal') {
        const problem =
          idProblem('subject id', subject.value) ?? idProblem('predicate IRI', predicate.value);
        if (problem) return { kind: 'invalid', reason: problem };
        if (RESERVED_PROPERTY_KEYS.has(predicate.value)) {
          return {
            kind: 'invalid',
            reason: `the predicate <${predicate.value}> names a reserved property (the entity's own ${predicate.value}); rename it`,
          };
        }
        return {
          kind: 'property',
          entity: subject.value,
          key: predicate.value,
          value: object.value,
        };
      }
      if (predicate.value === RDF_TYPE) return typeLabel(subject.value, object);
      return checkedEdge(subject.value, predicate.value, object.value);
    } catch (error) {
      if (error instanceof NtSyntaxError) return { kind: 'invalid', reason: error.message };
      throw error;
    }
  }
}

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/**
 * `rdf:type` makes a label of the subject, not an edge: the class IRI's local name (after its
 * last `#`, else its last `/`, else its last `:`), or the whole IRI when that is empty
 * (`<http://schema.org/Person>` is `Person`). docs/ingest.md states the rule.
 */
export function labelFromIri(iri: string): string {
  const cut = Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/'));
  const local = cut >= 0 ? iri.slice(cut + 1) : iri.slice(iri.lastIndexOf(':') + 1);
  return local.length > 0 ? local : iri;
}

function typeLabel(subject: string, object: Term): ParsedLine {
  if (object.kind !== 'iri') {
    return { kind: 'invalid', reason: 'the object of rdf:type must be a class IRI' };
  }
  const label = labelFromIri(object.value);
  const problem = idProblem('subject id', subject) ?? labelProblem('rdf:type label', label);
  return problem
    ? { kind: 'invalid', reason: problem }
    : { kind: 'labels', entity: subject, labels: [label] };
}

function skipSpace(line: string, i: number): number {
  while (line[i] === ' ' || line[i] === '\t') i += 1;
  return i;
}

function readTerm(line: string, i: number, role: string): Term {
  const c = line[i];
  if (c === '<') {
    const close = line.indexOf('>', i + 1);
    if (close < 0) throw new NtSyntaxError(`unterminated IRI in the ${role}`);
    const raw = line.slice(i + 1, close);
    if (/[\s<"{}|^`]/.test(raw)) throw new NtSyntaxError(`invalid character in the ${role} IRI`);
    return { kind: 'iri', value: unescape(raw, role), end: close + 1 };
  }
  if (c === '_' && line[i + 1] === ':') {
    let end = i + 2;
    while (end < line.length && !/[\s.]/.test(line[end] as string)) end += 1;
    // A label may contain '.', but not end with one: the statement's final '.' is not part of it.
    while (line[end] === '.' && end + 1 < line.length && !/\s/.test(line[end + 1] as string)) {
      end += 1;
      while (end < line.length && !/[\s.]/.test(line[end] as string)) end += 1;
    }
    if (end === i + 2) throw new NtSyntaxError(`empty blank node label in the ${role}`);
    return { kind: 'blank', value: line.slice(i, end), end };
  }
  if (c === '"') return readLiteral(line, i, role);
  throw new NtSyntaxError(`expected an IRI, blank node or literal as the ${role}`);
}

function readLiteral(line: string, i: number, role: string): Term {
  let j = i + 1;
  while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
  if (j >= line.length) throw new NtSyntaxError(`unterminated literal in the ${role}`);
  const value = unescape(line.slice(i + 1, j), role);
  let end = j + 1;
  if (line[end] === '@') {
    const match = /^@[a-zA-Z]+(-[a-zA-Z0-9]+)*/.exec(line.slice(end));
    if (!match) throw new NtSyntaxError(`invalid language tag in the ${role}`);
    end += match[0].length;
  } else if (line.startsWith('^^<', end)) {
    const close = line.indexOf('>', end + 3);
    if (close < 0) throw new NtSyntaxError(`unterminated datatype IRI in the ${role}`);
    end = close + 1;
  }
  return { kind: 'literal', value, end };
}

function unescape(text: string, role: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, seq: string) => {
    if (seq.length > 1) {
      const code = parseInt(seq.slice(1), 16);
      if (code > 0x10ffff) throw new NtSyntaxError(`invalid \\U escape in the ${role}`);
      return String.fromCodePoint(code);
    }
    const mapped = ESCAPES[seq];
    if (mapped === undefined) throw new NtSyntaxError(`invalid escape \\${seq} in the ${role}`);
    return mapped;
  });
}
