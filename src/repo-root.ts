import path from 'node:path';

/** The repository root, from src/ or dist/ alike (both sit one level below it). */
export const REPO_ROOT = path.resolve(__dirname, '..');
