/**
 * The layout's import rules (docs/architecture.md, "Import rules"), checked by `npm run lint`:
 * resolvers -> graph, model, schema, errors; graph and model never import resolvers or server;
 * ingest, export and demo are libraries beside graph and model; only model/ loads the native
 * binding; only graph/ talks to Neo4j; only cli/ parses arguments and draws progress; schema
 * has no I/O; the files at src/ itself are leaves; no import cycles.
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
      to: { path: '^src/(resolvers|server|cli|jobs|ingest|export|demo)/' },
    },
    {
      name: 'model-knows-no-database',
      severity: 'error',
      comment: 'The model (engine facade, store, scorer) works on files and arrays, not on Neo4j.',
      from: { path: '^src/model/' },
      to: { path: '^src/graph/' },
    },
    {
      name: 'ingest-and-export-are-graph-libraries',
      severity: 'error',
      comment: 'Files in and out of Neo4j: they use graph/, never the model, the job or the API.',
      from: { path: '^src/(ingest|export)/' },
      to: { path: '^src/(model|jobs|server|resolvers|schema|cli|demo)/' },
    },
    {
      name: 'ingest-and-export-are-separate',
      severity: 'error',
      comment: 'Ingest and export are two concepts: neither reaches into the other.',
      from: { path: '^src/ingest/' },
      to: { path: '^src/export/' },
    },
    {
      name: 'export-is-not-ingest',
      severity: 'error',
      from: { path: '^src/export/' },
      to: { path: '^src/ingest/' },
    },
    {
      name: 'demo-stands-alone',
      severity: 'error',
      comment: 'The demo world and its GraphQL client speak to the API over HTTP, like an app.',
      from: { path: '^src/demo/' },
      to: { path: '^src/(graph|model|jobs|ingest|export|server|resolvers|schema|cli|config)/' },
    },
    {
      name: 'jobs-stay-below-the-api',
      severity: 'error',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(server|resolvers|schema|ingest|demo)/' },
    },
    {
      name: 'resolvers-use-graph-model-schema-errors',
      severity: 'error',
      from: { path: '^src/resolvers/' },
      to: { path: '^src/(server|cli|jobs|ingest|export|demo)/' },
    },
    {
      name: 'schema-has-no-io',
      severity: 'error',
      from: { path: '^src/schema/' },
      to: {
        path: '^src/(graph|model|server|cli|jobs|ingest|export|demo|resolvers|config)/',
      },
    },
    {
      name: 'root-files-are-leaves',
      severity: 'error',
      comment: 'src/*.ts (repo root, direction, seeded random) are shared by every module.',
      from: { path: '^src/[^/]+[.]ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'only-model-loads-the-engine',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/model/' },
      to: { path: '^engine/' },
    },
    {
      name: 'only-graph-talks-to-neo4j',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/graph/' },
      to: { path: 'node_modules/neo4j-driver' },
    },
    {
      name: 'only-the-cli-parses-arguments-and-draws-progress',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: 'node_modules/(commander|cli-progress|dotenv)/' },
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
