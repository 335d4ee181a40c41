import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { REPO_ROOT } from '../../repo-root';
import { printGraphQLSchema } from '../../server/graphql-schema';
import type { CliOutput } from '../cli-output';

export const SCHEMA_FILE = path.join(REPO_ROOT, 'schema.graphql');

export function schemaCommand(out: CliOutput): Command {
  return new Command('schema')
    .description('Write the GraphQL schema (SDL) to schema.graphql, or print it with --print')
    .option('--print', 'print to stdout instead of writing the file')
    .action((options: { print?: boolean }) => {
      const sdl = printGraphQLSchema();
      if (options.print) out.info(sdl.trimEnd());
      else {
        fs.writeFileSync(SCHEMA_FILE, sdl);
        out.info(`Wrote ${SCHEMA_FILE}`);
      }
    });
}
