import fs from 'node:fs';
import path from 'node:path';

const COMPOSE = fs.readFileSync(path.resolve(__dirname, '../../../docker-compose.yml'), 'utf8');

/** The top-level services of docker-compose.yml, each as its block of lines. */
function services(): Map<string, string> {
  const body = COMPOSE.slice(COMPOSE.indexOf('\nservices:\n'), COMPOSE.indexOf('\nvolumes:\n'));
  const blocks = new Map<string, string>();
  for (const block of body.split(/\n(?= {2}[a-z][\w-]*:\n)/).slice(1)) {
    blocks.set(/^ {2}([\w-]+):/.exec(block)![1]!, block);
  }
  return blocks;
}

describe('docker-compose.yml: the kgc processes get the signals', () => {
  const kgc = [...services()].filter(([, block]) => /\n {4}build: \./.test(block));

  it('runs migrations in their own service that the API and the worker wait for', () => {
    expect(kgc.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'worker']);
    for (const name of ['api', 'worker']) {
      expect(services().get(name)).toMatch(
        /depends_on:\n {6}migrate:\n {8}condition: service_completed_successfully/,
      );
    }
  });

  it.each(['api', 'migrate', 'worker'])(
    '%s: node directly under an init (no shell that would swallow SIGTERM)',
    (name) => {
      const block = services().get(name)!;
      expect(block).toMatch(/\n {4}init: true\n/);
      const command = /\n {4}command: (.*)\n/.exec(block)?.[1];
      expect(command).toMatch(/^\['node', 'bin\/kgc\.js', '[a-z]+'/);
      expect(command).not.toMatch(/\bsh\b|&&/);
    },
  );
});
