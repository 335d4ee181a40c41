import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { graphSize, resolveTrainingConfig, train } from '../src/model';
import { estimateEpoch } from '../src/model/time-budget';
async function main() {
  const dataset = { dir: '/work/main/bench/quality/family/FB15k-237-r50' };
  const size = await graphSize(dataset);
  const c = resolveTrainingConfig('default', { threads: 2, epochs: 3 }, size, 59);
  const e = await estimateEpoch(dataset, c);
  console.log(JSON.stringify(e));
  let t = Date.now();
  await train(dataset, c, { outDir: fs.mkdtempSync(path.join(os.tmpdir(), 'x-')), onProgress: (ev) => {
    if (ev.kind !== 'batch') { console.log(ev.kind, ev.epoch, ev.seconds, (Date.now() - t) / 1000); t = Date.now(); }
  }});
}
main();
