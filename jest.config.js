// Jest with ts-jest (it type-checks tests and emits decorator metadata for type-graphql).
/** @type {import('jest').Config} */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };

module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      // One real Neo4j per run, started before and stopped after (also when tests fail).
      globalSetup: '<rootDir>/test/support/neo4j-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/neo4j-global-teardown.ts',
      setupFiles: ['reflect-metadata'],
    },
  ],
  testTimeout: 60000,
};
