import path from 'node:path';
import type { AdminImportFiles } from '../../graph/local/admin-import';
import type { ParsedLine } from '../parsed-line';
import { BufferedFile, csvField } from './buffered-file';
import { IdInterner } from './id-interner';
import { EntityLabelSets } from './label-sets';
import { TripleSet } from './triple-set';

const NODES_FILE = 'entities.csv';
const RELATIONSHIPS_FILE = 'relationships.csv';
const PROPERTIES_FILE = 'properties.nt';

/** neo4j-admin's input, and the N-Triples literals it cannot carry. */
export interface ImportFiles extends AdminImportFiles {
  /** N-Triples literal lines to ingest after the import (entity properties); undefined: none. */
  properties?: string;
}

/**
 * The graph of a bulk load as it is read, written out as neo4j-admin's input: each entity gets
 * a dense integer id (`:ID`) in order of first sight; each distinct edge is one relationship row
 * as soon as it is seen (repeats dropped, as the transactional ingest's MERGE does); the nodes,
 * which carry their labels, are written at the end, once every label is known.
 */
export class ImportGraph {
  private readonly entities = new IdInterner();
  private readonly relations = new IdInterner();
  /** Quoted relation names by relation id: written once per edge, quoted once. */
  private readonly relationFields: string[] = [];
  private readonly labelSets = new EntityLabelSets();
  private readonly edges: TripleSet;
  private properties: BufferedFile | undefined;
  triples = 0;
  duplicates = 0;
  labelled = 0;
  literals = 0;

  private constructor(
    private readonly dir: string,
    private readonly relationships: BufferedFile,
    expectedEdges: number,
  ) {
    this.edges = new TripleSet(expectedEdges);
  }

  static async create(dir: string, expectedEdges: number): Promise<ImportGraph> {
    const relationships = await BufferedFile.create(path.join(dir, RELATIONSHIPS_FILE));
    relationships.add(':START_ID,:TYPE,:END_ID\n');
    return new ImportGraph(dir, relationships, expectedEdges);
  }

  get entityCount(): number {
    return this.entities.size;
  }

  get relationCount(): number {
    return this.relations.size;
  }

  get edgeCount(): number {
    return this.edges.size;
  }

  /**
   * Takes one valid line (`text` as read, kept for literals); returns a promise only when a
   * write block is full, so the caller awaits once per block rather than once per line.
   */
  add(line: ParsedLine, text: string): Promise<void> | undefined {
    switch (line.kind) {
      case 'edge': {
        this.triples += 1;
        const h = this.entities.intern(line.head);
        const r = this.relations.intern(line.relation);
        const t = this.entities.intern(line.tail);
        if (!this.edges.add(h, r, t)) {
          this.duplicates += 1;
          return undefined;
        }
        if (r === this.relationFields.length) this.relationFields.push(csvField(line.relation));
        const full = this.relationships.add(`${h},${this.relationFields[r] as string},${t}\n`);
        return full ? this.relationships.flush() : undefined;
      }
      case 'labels':
        this.labelSets.add(this.entities.intern(line.entity), line.labels);
        this.labelled += 1;
        return undefined;
      case 'property':
        this.entities.intern(line.entity);
        this.literals += 1;
        return this.addLiteral(text);
      default:
        return undefined;
    }
  }

  /** Completes the files: the relationships and literals written, then the nodes. */
  async finish(): Promise<ImportFiles> {
    await this.close();
    const nodes = path.join(this.dir, NODES_FILE);
    await this.writeNodes(nodes);
    return {
      nodes,
      relationships: this.relationships.path,
      ...(this.properties ? { properties: this.properties.path } : {}),
    };
  }

  /** Closes the open files (after a failure: the caller discards the folder). */
  async close(): Promise<void> {
    try {
      await this.relationships.close();
    } finally {
      await this.properties?.close();
    }
  }

  private async addLiteral(text: string): Promise<void> {
    this.properties ??= await BufferedFile.create(path.join(this.dir, PROPERTIES_FILE));
    if (this.properties.add(`${text}\n`)) await this.properties.flush();
  }

  /** `:ID` is the dense id (not stored), `id` the entity's own id, `:LABEL` its labels. */
  private async writeNodes(file: string): Promise<void> {
    const out = await BufferedFile.create(file);
    const labelFields: string[] = [];
    try {
      out.add(':ID,id,:LABEL\n');
      for (const [id, n] of this.entities.entries()) {
        const set = this.labelSets.setIndex(n);
        // neo4j-admin splits :LABEL on `;`, which no label holds (labelProblem).
        labelFields[set] ??= set === 0 ? '' : csvField(this.labelSets.labels(set).join(';'));
        if (out.add(`${n},${csvField(id)},${labelFields[set]}\n`)) await out.flush();
      }
    } finally {
      await out.close();
    }
  }
}
