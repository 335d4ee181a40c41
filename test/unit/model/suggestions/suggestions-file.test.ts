import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSuggestions, readSuggestionsFile, SuggestionsWriter } from '../../../../src/model';
import { ServedSuggestions } from '../../../../src/model/suggestions/served-suggestions';
import type { SuggestionColumns } from '../../../../src/model/suggestions/suggestion-types';

const header = (createdAt: string) => ({
  version: 'v1',
  createdAt,
  perRelation: 3,
  entities: 5,
});

const columns = (rows: [number, number, number, number][]): SuggestionColumns => ({
  heads: Uint32Array.from(rows, (r) => r[0]),
  tails: Uint32Array.from(rows, (r) => r[1]),
  logits: Float32Array.from(rows, (r) => r[2]),
  probabilities: Float64Array.from(rows, (r) => r[3]),
});

// Odd counts (3 and 1 rows: 60 and 20 bytes) so that lists need padding to stay aligned.
const likes: [number, number, number, number][] = [
  [0, 1, 2.5, 0.9],
  [2, 3, 1.25, 0.7],
  [4, 0, -0.5, 0.123456789012345],
];
const knows: [number, number, number, number][] = [[1, 4, 0.75, 0.5]];

function writeBin(dir: string, createdAt = '2026-01-01T00:00:00.000Z'): string {
  const writer = new SuggestionsWriter(dir);
  writer.add({ relation: 'likes', direction: 'tail', typed: true }, columns(likes));
  writer.add({ relation: 'knows', direction: 'head', typed: false }, columns(knows));
  expect(writer.rows).toBe(4);
  return writer.finish(header(createdAt));
}

describe('suggestions.bin: written one list at a time, read as views; older suggestions.json still read', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-suggestions-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads back every row exactly, as aligned typed-array views of the file', () => {
    expect(writeBin(dir)).toBe(path.join(dir, 'suggestions.bin'));
    const stored = openSuggestions(dir)!;
    expect(stored).toMatchObject({ ...header('2026-01-01T00:00:00.000Z') });
    expect(stored.lists).toEqual([
      { relation: 'likes', direction: 'tail', typed: true, count: 3 },
      { relation: 'knows', direction: 'head', typed: false, count: 1 },
    ]);
    const c = stored.columns(1);
    expect(c.heads.buffer).toBe(stored.columns(0).heads.buffer); // one read, no copies
    expect(Array.from(c.tails)).toEqual([4]);
    const file = readSuggestionsFile(dir)!;
    expect(file.relations[0]!.rows).toEqual(likes);
    expect(file.relations[1]!.rows).toEqual(knows);
    expect(fs.readdirSync(dir)).toEqual(['suggestions.bin']);
  });

  it("serves an older version's suggestions.json, and the binary file that replaces it", () => {
    const json = {
      format: 1,
      ...header('2025-01-01T00:00:00.000Z'),
      relations: [{ relation: 'likes', direction: 'tail', typed: true, rows: [[3, 2, 1.5, 0.6]] }],
    };
    fs.writeFileSync(path.join(dir, 'suggestions.json'), JSON.stringify(json));
    const served = new ServedSuggestions(dir, ['a', 'b', 'c', 'd', 'e']);
    expect(served.list('likes', 'tail')).toEqual({
      createdAt: '2025-01-01T00:00:00.000Z',
      typed: true,
      items: [{ head: 'd', tail: 'c', logit: 1.5, probability: 0.6 }],
    });
    expect(readSuggestionsFile(dir)).toEqual(json);
    writeBin(dir);
    expect(fs.existsSync(path.join(dir, 'suggestions.json'))).toBe(false);
    const list = served.list('likes', 'tail')!;
    expect(list.createdAt).toBe('2026-01-01T00:00:00.000Z');
    expect(list.items.map((i) => [i.head, i.tail, i.probability])).toEqual([
      ['a', 'b', 0.9],
      ['c', 'd', 0.7],
      ['e', 'a', 0.123456789012345],
    ]);
    expect(served.list('knows', 'tail')).toBeUndefined();
    expect(served.list('knows', 'head')!.items).toHaveLength(1);
  });

  it('holds the lists asked for within a bound, dropping the least recently asked for', () => {
    writeBin(dir);
    // likes/tail holds 3 suggestions, knows/head 1; a bound of 3 keeps one of them at a time.
    const served = new ServedSuggestions(dir, ['a', 'b', 'c', 'd', 'e'], 3);
    const likes = served.list('likes', 'tail')!;
    expect(served.heldSuggestions).toBe(3);
    served.list('knows', 'head');
    expect(served.heldSuggestions).toBe(1);
    // likes was dropped: asked for again, it is named again (a new list, the same items).
    const again = served.list('likes', 'tail')!;
    expect(again).not.toBe(likes);
    expect(again).toEqual(likes);
    expect(served.heldSuggestions).toBe(3);
    // Within the bound, a list asked for again is the one held.
    const roomy = new ServedSuggestions(dir, ['a', 'b', 'c', 'd', 'e'], 10);
    const held = roomy.list('likes', 'tail');
    roomy.list('knows', 'head');
    expect(roomy.list('likes', 'tail')).toBe(held);
    expect(roomy.heldSuggestions).toBe(4);
  });

  it('abort leaves the earlier file as it was and no temporary file', () => {
    writeBin(dir);
    const before = fs.readFileSync(path.join(dir, 'suggestions.bin'));
    const writer = new SuggestionsWriter(dir);
    writer.add({ relation: 'likes', direction: 'tail', typed: true }, columns(knows));
    writer.abort();
    expect(fs.readFileSync(path.join(dir, 'suggestions.bin')).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['suggestions.bin']);
  });

  it("removes a killed writer's temporary file, never a running writer's", () => {
    writeBin(dir);
    const finished = spawnSync('true');
    const killed = path.join(dir, `suggestions.bin.tmp-${finished.pid}`);
    // This process stands for a writer that still runs (another process, in real use).
    const running = path.join(dir, `suggestions.bin.tmp-${process.ppid}`);
    fs.writeFileSync(killed, 'half a file');
    fs.writeFileSync(running, 'being written');
    const writer = new SuggestionsWriter(dir);
    writer.abort();
    expect(fs.existsSync(killed)).toBe(false);
    expect(fs.readFileSync(running, 'utf8')).toBe('being written');
  });

  it('refuses a truncated or tampered file with MODEL_INVALID, naming the file and the fix', () => {
    const file = writeBin(dir);
    const whole = fs.readFileSync(file);
    fs.writeFileSync(file, whole.subarray(0, whole.length - 3));
    expect(() => openSuggestions(dir)).toThrow(
      expect.objectContaining({
        code: 'MODEL_INVALID',
        message: expect.stringMatching(/suggestions\.bin .* unusable .*npx kgc suggest/),
      }),
    );
    // A head id past the vocabulary in the second list: the index opens, that list is refused.
    const bad = Buffer.from(whole);
    bad.writeUInt32LE(99, 16 + 64 + 8 + 4);
    fs.writeFileSync(file, bad);
    const stored = openSuggestions(dir)!;
    expect(Array.from(stored.columns(0).heads)).toEqual([0, 2, 4]);
    expect(() => stored.columns(1)).toThrow(/row 0 of knows \(head\) is out of range/);
  });
});
