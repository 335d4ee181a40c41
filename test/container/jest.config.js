// The container test (scripts/container-test.sh builds the image first): the kgc image and the
// compose stack run for real. Not part of `npx jest`: it needs a container engine.
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  displayName: 'container',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/container/**/*.test.ts'],
  setupFiles: ['reflect-metadata'],
  testTimeout: 600_000,
};
