import fs from 'node:fs';
import { TEST_ENV, testNeo4j } from './test-neo4j';

export default async function globalTeardown(): Promise<void> {
  const dir = process.env[TEST_ENV.dir];
  if (!dir) return;
  await testNeo4j(dir).stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
