import { sortedNames } from './vocabulary';

/**
 * Neo4j node ids (sparse, up to 2^35) to provisional entity indexes, in pages of 64k entries
 * so memory follows the ids in use: 4 bytes per id of every page touched.
 */
export class NodeVocabulary {
  private readonly pages: Int32Array[] = [];
  /** By provisional index: the node id, and the entity id once known. */
  readonly nodes: number[] = [];
  readonly names: (string | undefined)[] = [];

  indexOf(node: number): number {
    const pageNumber = Math.floor(node / NODE_PAGE);
    let page = this.pages[pageNumber];
    if (page === undefined) {
      page = new Int32Array(NODE_PAGE);
      this.pages[pageNumber] = page;
    }
    const slot = node - pageNumber * NODE_PAGE;
    const known = page[slot] as number;
    if (known !== 0) return known - 1;
    this.nodes.push(node);
    this.names.push(undefined);
    page[slot] = this.nodes.length;
    return this.nodes.length - 1;
  }

  /** Names `node` with its entity id; returns its provisional index. */
  name(node: number, id: string): number {
    const index = this.indexOf(node);
    this.names[index] = id;
    return index;
  }

  unnamedNodes(): number[] {
    const out: number[] = [];
    this.names.forEach((name, i) => {
      if (name === undefined) out.push(this.nodes[i] as number);
    });
    return out;
  }

  /**
   * The named entities in sorted id order (JS string order) and remap[provisional] = final
   * index; a node never named (deleted during the read) maps to -1.
   */
  sorted(): { names: string[]; remap: Int32Array } {
    return sortedNames(this.names);
  }
}

const NODE_PAGE = 1 << 16;
