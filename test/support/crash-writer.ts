// Writes model versions into a store in a loop, the way the job does, until it is killed:
// the fault-injection test kills it with SIGKILL at random moments (test/unit/model/model-store-durability.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ModelStore } from '../../src/model/store/model-store';

const [root, template] = process.argv.slice(2) as [string, string];
const store = new ModelStore(root);
const files = fs.readdirSync(template).filter((n) => fs.statSync(path.join(template, n)).isFile());
// Bounded, so an orphaned writer stops by itself.
for (let n = 0; n < 200; n++) {
  const version = store.newVersionId();
  const dir = store.createTemp(version);
  for (const name of files) {
    const bytes = fs.readFileSync(path.join(template, name));
    const out =
      name === 'version.json'
        ? Buffer.from(JSON.stringify({ ...JSON.parse(bytes.toString('utf8')), version }))
        : bytes;
    // Small writes, so a kill often lands in the middle of a file.
    const fd = fs.openSync(path.join(dir, name), 'w');
    for (let at = 0; at < out.length; at += 4096)
      fs.writeSync(fd, out, at, Math.min(4096, out.length - at));
    fs.closeSync(fd);
  }
  store.commit(dir, version);
  process.stdout.write(`${version}\n`);
}
