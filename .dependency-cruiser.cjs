/**
 * The layout's import rules (design.md, "Import rules"), checked by `npm run lint`:
 * resolvers -> graph, model, schema, errors; graph and model never import resolvers or server;
 * only model/ loads the native binding; schema has no I/O; no import cycles.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles make modules impossible to read or test alone.',
      from: { path: '^src' },
      to: { circular: true },
    },
    {
      name: 'graph-and-model-stay-below-the-api',
      severity: 'error',
      from: { path: '^src/(graph|model)/' },
      to: { path: '^src/(resolvers|server|cli|jobs)/' },
    },
    {
      name: 'resolvers-use-graph-model-schema-errors',
      severity: 'error',
      from: { path: '^src/resolvers/' },
      to: { path: '^src/(server|cli|jobs|ingest)/' },
    },
    {
      name: 'schema-has-no-io',
      severity: 'error',
      from: { path: '^src/schema/' },
      to: { path: '^src/(graph|model|server|cli|jobs|ingest|resolvers|config)/' },
    },
    {
      name: 'only-model-loads-the-engine',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/model/' },
      to: { path: '^engine/' },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
