import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../repo-root';

/** The service version, read once from package.json (the one place it is written). */
export const SERVICE_VERSION: string = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
