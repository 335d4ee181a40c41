import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CANARY_EDGES,
  CANARY_FILE,
  readCanaryFile,
  writeCanaryFile,
} from '../../../../src/model/fold-in/canary-file';

describe("a version's canary file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-canary-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (body: string) => fs.writeFileSync(path.join(dir, CANARY_FILE), body);

  it('keeps a seeded sample of the held-out edges and reads it back', () => {
    const edges = Uint32Array.from({ length: 3 * (CANARY_EDGES + 300) }, (_, i) =>
      i % 3 === 1 ? 1 : (i * 7) % 50,
    );
    writeCanaryFile(dir, edges, 3);
    const read = readCanaryFile(dir, 50, 2)!;
    expect(read).toHaveLength(3 * CANARY_EDGES);
    const given = new Set<string>();
    for (let i = 0; i < edges.length; i += 3)
      given.add(`${edges[i]} ${edges[i + 1]} ${edges[i + 2]}`);
    for (let i = 0; i < read.length; i += 3) {
      expect(given.has(`${read[i]} ${read[i + 1]} ${read[i + 2]}`)).toBe(true);
    }
    writeCanaryFile(dir, edges, 3);
    expect(readCanaryFile(dir, 50, 2)).toEqual(read);
  });

  it('is absent for a directory without one', () => {
    expect(readCanaryFile(path.join(dir, 'nowhere'), 10, 1)).toBeUndefined();
  });

  it.each([
    ['{"format":1,"edges":[[0,0,99]]}', 'edge 0 is not [head, relation, tail]'],
    ['{"format":1,"edges":[[0,5,1]]}', 'edge 0 is not [head, relation, tail]'],
    ['{"format":1,"edges":[null]}', 'edge 0 is not'],
    ['{"format":1,"edges":[[0,0,1.5]]}', 'edge 0 is not'],
    ['{"format":2,"edges":[]}', 'is not format 1'],
    ['{"format":1}', 'is not format 1'],
    ['not json', 'is not JSON'],
    ['null', 'is not format 1'],
  ])('refuses %s as MODEL_INVALID', (body, message) => {
    write(body);
    expect(() => readCanaryFile(dir, 10, 2)).toThrow(
      expect.objectContaining({ code: 'MODEL_INVALID', message: expect.stringContaining(message) }),
    );
  });

  it('refuses a file larger than a canary can be', () => {
    write(`{"format":1,"edges":[${'[0,0,1],'.repeat(200_000)}[0,0,1]]}`);
    expect(() => readCanaryFile(dir, 10, 2)).toThrow(/bytes \(at most/);
  });
});
