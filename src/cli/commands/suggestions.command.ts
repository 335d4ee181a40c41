import { Command, InvalidArgumentError } from 'commander';
import { ErrorCode, KgcError } from '../../errors';
import { replaceSuggestedEdges } from '../../graph';
import type { SuggestedEdge } from '../../graph';
import { loadServingModel, readSuggestionsFile } from '../../model';
import type { CliOutput } from '../cli-output';
import { activeVersionDir } from './active-suggestions';
import { withLifecycleDatabase } from './lifecycle-context';
import {
  formatSuggestions,
  SUGGESTION_FORMATS,
  suggestionRecords,
  writeWhole,
} from './suggestion-rows';
import type { SuggestionFormat, SuggestionRecord } from './suggestion-rows';

interface ExportOptions {
  out?: string;
  relation?: string[];
  minProbability?: number;
  format: SuggestionFormat;
  toNeo4j?: boolean;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function probability(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('expected a probability from 0 to 1.');
  return n;
}

function format(value: string): SuggestionFormat {
  if (!(SUGGESTION_FORMATS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${SUGGESTION_FORMATS.join(', ')}.`);
  return value as SuggestionFormat;
}

/** One edge per (head, relation, tail): a suggestion found in both directions counts once. */
function distinctEdges(records: SuggestionRecord[]): SuggestedEdge[] {
  const best = new Map<string, SuggestedEdge>();
  for (const r of records) {
    const key = JSON.stringify([r.head, r.relation, r.tail]);
    const known = best.get(key);
    if (!known || r.probability > known.probability) {
      best.set(key, {
        head: r.head,
        relation: r.relation,
        tail: r.tail,
        probability: r.probability,
        logit: r.logit,
      });
    }
  }
  return [...best.values()];
}

function exportCommand(out: CliOutput): Command {
  return new Command('export')
    .description("Write the active version's stored suggestions to a file, or into Neo4j")
    .option('--out <file>', 'the file to write (replaced whole)')
    .option('--relation <name>', 'only this relation (repeat for several)', collect)
    .option('--min-probability <p>', 'leave out suggestions below this probability', probability)
    .option('--format <format>', `file format: ${SUGGESTION_FORMATS.join(', ')}`, format, 'tsv')
    .option(
      '--to-neo4j',
      'write them as (:Entity)-[:KGC_SUGGESTED {relation, probability, logit, modelVersion}]->(:Entity), replacing earlier ones',
    )
    .action(async (options: ExportOptions) => {
      if (!options.out && !options.toNeo4j) {
        throw new KgcError(ErrorCode.BAD_USER_INPUT, 'Give --out <file>, --to-neo4j, or both.');
      }
      await withLifecycleDatabase(async (db, config) => {
        const { version, dir } = await activeVersionDir(db, config);
        const file = readSuggestionsFile(dir);
        if (!file) {
          throw new KgcError(
            ErrorCode.NOT_FOUND,
            `No suggestions are stored for the active version ${version}: run \`npx kgc suggest\` first.`,
          );
        }
        const { entities } = (await loadServingModel(dir, version)).scorer;
        const stored = new Set(file.relations.map((r) => r.relation));
        const unknown = (options.relation ?? []).filter((r) => !stored.has(r));
        if (unknown.length > 0) {
          throw new KgcError(
            ErrorCode.UNKNOWN_RELATION,
            `--relation ${unknown.join(', ')}: no suggestions stored for it; \`npx kgc suggest --relation <name>\` computes them.`,
          );
        }
        const records = suggestionRecords(file, entities, {
          relations: options.relation,
          minProbability: options.minProbability,
        });
        if (options.out) {
          writeWhole(options.out, formatSuggestions(records, options.format));
          out.info(`Wrote ${records.length} suggestions of ${version} to ${options.out}.`);
        }
        if (options.toNeo4j) {
          const written = await replaceSuggestedEdges(db, version, distinctEdges(records));
          out.info(
            `Wrote ${written} KGC_SUGGESTED edges of ${version} to Neo4j (earlier ones removed).`,
          );
        }
      });
    });
}

export function suggestionsCommand(out: CliOutput): Command {
  return new Command('suggestions')
    .description('the stored suggestions of the active version (`kgc suggest` computes them)')
    .addCommand(exportCommand(out));
}
