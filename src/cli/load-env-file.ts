import path from 'node:path';
import { config } from 'dotenv';

/**
 * Loads `.env` from the working directory into the environment, once, as the CLI starts: a
 * variable already set wins (the file never overrides it) and a missing file is fine. The file
 * holds the variables of .env.example; config/ then reads the environment as always.
 */
export function loadEnvFile(dir: string = process.cwd()): void {
  config({ path: path.join(dir, '.env'), override: false, quiet: true });
}
