import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../../src/errors';
import { GRAPH_FILE, readGraphFile } from '../../../../src/model/rules/graph-file';
import { loadVersionGraph, writeVersionGraph } from '../../../../src/model/rules/version-graph';

const MODEL = { entities: ['a', 'b', 'c', 'd'], relations: ['r', 's'] };

/** A model directory as far as the graph file needs one: a manifest with the vocabularies. */
function modelDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-graph-file-'));
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(MODEL));
  return dir;
}

/** (a r b), (b s c), (d r a) in the model's own ids. */
const GRAPH = {
  entities: MODEL.entities,
  relationNames: MODEL.relations,
  heads: Int32Array.from([0, 1, 3]),
  relations: Int32Array.from([0, 1, 0]),
  tails: Int32Array.from([1, 2, 0]),
};

describe('graph.bin', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = modelDir();
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('round-trips the edges in the model ids, 32 bytes of header and 12 per edge', async () => {
    const dir = fresh();
    expect(await writeVersionGraph(GRAPH, dir)).toMatch(/wrote graph\.bin: 3 edge\(s\)/);
    expect(fs.statSync(path.join(dir, GRAPH_FILE)).size).toBe(32 + 12 * 3);
    const edges = await readGraphFile(dir, MODEL);
    expect(edges && [...edges.heads]).toEqual([0, 1, 3]);
    expect(edges && [...edges.relations]).toEqual([0, 1, 0]);
    expect(edges && [...edges.tails]).toEqual([1, 2, 0]);
    const index = await loadVersionGraph(dir, MODEL);
    expect(index?.has(3, 0, 0)).toBe(true);
    expect(index?.has(2, 3, 1)).toBe(true);
    expect(index?.has(0, 0, 3)).toBe(false);
  });

  it('maps a graph in other ids onto the model by name, leaving out what the model lacks', async () => {
    const dir = fresh();
    await writeVersionGraph(
      {
        entities: ['d', 'c', 'b', 'a', 'new'],
        relationNames: ['s', 'r'],
        // (d s c), (a r b), (new r a)
        heads: Int32Array.from([0, 3, 4]),
        relations: Int32Array.from([0, 1, 1]),
        tails: Int32Array.from([1, 2, 3]),
      },
      dir,
    );
    const edges = await readGraphFile(dir, MODEL);
    expect(edges && [...edges.heads]).toEqual([3, 0]);
    expect(edges && [...edges.relations]).toEqual([1, 0]);
    expect(edges && [...edges.tails]).toEqual([2, 1]);
  });

  it('is optional: a directory without it has no graph', async () => {
    const dir = fresh();
    expect(await readGraphFile(dir, MODEL)).toBeUndefined();
    expect(await loadVersionGraph(dir, MODEL)).toBeUndefined();
  });

  it("refuses a file that is not this model's graph, saying what to do", async () => {
    const dir = fresh();
    await writeVersionGraph(GRAPH, dir);
    const file = path.join(dir, GRAPH_FILE);
    const good = fs.readFileSync(file);
    const refused = async (bytes: Buffer, vocabulary = MODEL) => {
      fs.writeFileSync(file, bytes);
      return readGraphFile(dir, vocabulary).then(
        () => undefined,
        (error: { code?: string; message: string }) => error,
      );
    };
    // Same sizes, other names: the vocabulary checksum tells them apart.
    const swapped = { ...MODEL, entities: ['b', 'a', 'c', 'd'] };
    expect(await refused(good, swapped)).toMatchObject({
      code: ErrorCode.MODEL_INVALID,
      message: expect.stringMatching(/another vocabulary.*delete the file/),
    });
    expect((await refused(good.subarray(0, good.length - 4)))?.message).toMatch(/is truncated/);
    expect((await refused(Buffer.from('not a graph at all, really not')))?.message).toMatch(
      /is not a kgc graph file/,
    );
    const future = Buffer.from(good);
    future.writeUInt32LE(2, 8);
    expect((await refused(future))?.message).toMatch(/has format 2, not 1/);
    const outOfRange = Buffer.from(good);
    outOfRange.writeInt32LE(4, 32 + 12 * 2 + 4); // the second tail: entity 4 of 4
    expect((await refused(outOfRange))?.message).toMatch(/id out of range at edge 1/);
  });
});
