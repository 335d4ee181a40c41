import { Command } from 'commander';
import {
  getActiveVersion,
  getVersion,
  listVersions,
  promoteVersion,
  prunedVersions,
  rollbackVersion,
} from '../../graph/registry';
import type { ModelVersionRecord } from '../../graph/registry';
import { applyRetention, describeSweep } from '../../jobs/model-retention';
import type { RetentionResult } from '../../jobs/model-retention';
import { suggestAfterPromotion } from '../../jobs/suggest-after-promotion';
import { openModelStore, openVersionDir, readCalibrationFile } from '../../model';
import { isRecord } from '../../model/store/model-json';
import type { CalibrationFile, EngineConfig } from '../../model';
import type { CliOutput } from '../cli-output';
import { withLifecycleDatabase } from './lifecycle-context';
import { assertLoadable } from './loadable-version';
import { trainingOriginLine, trainingOriginOf } from './training-origin';

interface JsonOption {
  json?: boolean;
}

function testMrr(v: ModelVersionRecord): string {
  return v.testMrr === null ? 'n/a' : v.testMrr.toFixed(4);
}

/** The fields `models list --json` promises, one object per version. */
function listItem(v: ModelVersionRecord, prunedAt: string | undefined) {
  return {
    version: v.version,
    status: v.status,
    active: v.active,
    metrics: v.metrics,
    createdAt: v.createdAt,
    trigger: v.trigger,
    testMrr: v.testMrr,
    triples: v.triples,
    gate: v.gate,
    /** When retention removed the version's files (KGC_MODEL_KEEP), or null. */
    prunedAt: prunedAt ?? null,
  };
}

function listCommand(out: CliOutput): Command {
  return new Command('list')
    .description('every model version, newest first: status, test MRR, trigger')
    .option('--json', 'one JSON array')
    .action(async (options: JsonOption) => {
      await withLifecycleDatabase(async (db, config) => {
        const versions = await listVersions(db, config.lifecycle.registryScope);
        const pruned = await prunedVersions(db, config.lifecycle.registryScope);
        if (options.json) {
          out.info(JSON.stringify(versions.map((v) => listItem(v, pruned.get(v.version)))));
          return;
        }
        if (versions.length === 0) out.info('No model versions yet: run `npx kgc train`.');
        for (const v of versions) {
          out.info(
            `${v.active ? '*' : ' '} ${v.version}  ${v.status.padEnd(9)}  test MRR ${testMrr(v)}  ` +
              `${v.triples} triples  ${v.trigger}  ${v.createdAt}` +
              (pruned.has(v.version) ? '  (files pruned)' : ''),
          );
        }
      });
    });
}

/** The version's calibration summary, or null (none, files pruned, or unreadable). */
function calibrationOf(dir: string | null | undefined): CalibrationFile | null {
  if (!dir) return null;
  try {
    return readCalibrationFile(dir);
  } catch {
    return null;
  }
}

/** The settings the version's weights were trained with (version.json), or null when pruned. */
function trainingConfigOf(dir: string | null | undefined): EngineConfig | null {
  if (!dir) return null;
  try {
    return openVersionDir(dir).info.config;
  } catch {
    return null;
  }
}

function trainingLine(c: EngineConfig): string {
  return (
    `training: loss ${c.loss ?? 'bce'}, label smoothing ${c.labelSmoothing}, ` +
    `entity dim ${c.entityDim}, relation dim ${c.relationDim}, lr ${c.lr} (decay ${c.decay}), ` +
    `dropout ${c.dropoutIn}/${c.dropoutH1}/${c.dropoutH2}, batch ${c.batchSize}, ` +
    `${c.activation}, ${c.inverseMode}, ` +
    (c.sampledCandidates
      ? `scored against ${c.sampledCandidates} sampled entities`
      : 'scored against every entity')
  );
}

/**
 * The calibration summary's lines. The summary is not what serving reads (the calibrators are
 * checked when the version loads), so a damaged one prints "?" where a number belongs.
 */
export function calibrationLines(c: CalibrationFile): string[] {
  const { before, after } = c;
  if (!isRecord(before) || !isRecord(after)) return [];
  const fixed = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(4) : '?');
  const text = (x: unknown) => (typeof x === 'string' || typeof x === 'number' ? String(x) : '?');
  const change = (from: Record<string, unknown>, to: Record<string, unknown>) =>
    (['ece', 'brier', 'logLoss'] as const)
      .map((key) => `${METRIC_NAMES[key]} ${fixed(from[key])} -> ${fixed(to[key])}`)
      .join(', ');
  const mix: Record<string, unknown> = isRecord(c.fitMix) ? c.fitMix : {};
  const edge =
    isRecord(c.edge) && isRecord(c.edge.tailOnly) && isRecord(c.edge.after) ? c.edge : null;
  return [
    `calibration (fitted on ${text(c.fittedOn)}, measured on ${text(c.measuredOn)}, ECE over ${text(c.eceBins)} bins): ` +
      change(before, after),
    ...(edge
      ? [
          `edge probability (both questions and the ends' counts, as edgeProbabilities), against the tail question alone: ` +
            change(
              edge.tailOnly as unknown as Record<string, unknown>,
              edge.after as unknown as Record<string, unknown>,
            ),
        ]
      : []),
    `calibration negatives (fit): ${text(mix.positives)} positives; ${text(mix.rejected)} rejections, ` +
      `${text(mix.range)} range and ${text(mix.uniform)} uniform corruptions (1:1 by weight)`,
  ];
}

const METRIC_NAMES = { ece: 'ECE', brier: 'Brier', logLoss: 'log-loss' } as const;

function showCommand(out: CliOutput): Command {
  return new Command('show')
    .description('one version: metrics (overall and per relation), gate, snapshot, directory')
    .argument('<version>', 'a version id from `kgc models list`')
    .option('--json', 'the record as JSON')
    .action(async (version: string, options: JsonOption) => {
      await withLifecycleDatabase(async (db, config) => {
        const v = await getVersion(db, version, config.lifecycle.registryScope);
        const prunedAt = (await prunedVersions(db, config.lifecycle.registryScope)).get(version);
        const calibration = prunedAt ? null : calibrationOf(v.dir);
        const training = prunedAt ? null : trainingConfigOf(v.dir);
        const trainedFrom = prunedAt ? null : trainingOriginOf(v.dir);
        if (options.json) {
          const record = { ...v, prunedAt: prunedAt ?? null, calibration, training };
          out.info(JSON.stringify({ ...record, trainedFrom }));
          return;
        }
        out.info(`${v.version}: ${v.status}${v.active ? ' (active)' : ''}, test MRR ${testMrr(v)}`);
        out.info(`created ${v.createdAt} by ${v.trigger}; promoted ${v.promotedAt ?? 'never'}`);
        out.info(
          `snapshot: ${v.triples} triples, ${v.entities} entities, ${v.relations} relations`,
        );
        out.info(
          `fingerprint ${v.fingerprint}; ` +
            (prunedAt ? `files pruned ${prunedAt} (KGC_MODEL_KEEP)` : `files in ${v.dir}`),
        );
        if (training) out.info(trainingLine(training));
        if (trainedFrom) out.info(trainingOriginLine(trainedFrom));
        if (v.gate) out.info(`gate: ${JSON.stringify(v.gate)}`);
        if (v.metrics) out.info(`metrics: ${JSON.stringify(v.metrics)}`);
        if (calibration) for (const line of calibrationLines(calibration)) out.info(line);
        else out.info('calibration: none (probabilities are the sigmoid of the logit)');
      });
    });
}

function promoteCommand(out: CliOutput): Command {
  return new Command('promote')
    .description('make a version the active one (one transaction; the current one is retired)')
    .argument('<version>', 'a version id from `kgc models list`')
    .option('--json', 'print the outcome as JSON')
    .action(async (version: string, options: JsonOption) => {
      await withLifecycleDatabase(async (db, config) => {
        const scope = config.lifecycle.registryScope;
        const store = openModelStore(config.lifecycle);
        await assertLoadable(db, store, await getVersion(db, version, scope), scope, 'promote');
        const result = await promoteVersion(db, version, scope);
        if (options.json) out.info(JSON.stringify(result));
        else out.info(`Active: ${result.version} (was ${result.previous ?? 'none'}).`);
        await suggestAfterPromotion(
          db,
          store,
          { version: result.version, dir: await store.locate(result.version) },
          config.lifecycle.suggestionsPerRelation,
          (line) => out.error(line),
        );
        await retain(out, () => applyRetention(db, store, config.lifecycle.modelKeep, scope));
      });
    });
}

function rollbackCommand(out: CliOutput): Command {
  return new Command('rollback')
    .description('re-activate the version that was active before the current one')
    .option('--json', 'print the outcome as JSON')
    .action(async (options: JsonOption) => {
      await withLifecycleDatabase(async (db, config) => {
        const scope = config.lifecycle.registryScope;
        const store = openModelStore(config.lifecycle);
        const active = await getActiveVersion(db, scope);
        const target = active && (await getVersion(db, active.version, scope)).previousActive;
        // Without a target, rollbackVersion itself says why there is nothing to roll back to.
        if (target) {
          await assertLoadable(
            db,
            store,
            await getVersion(db, target, scope),
            scope,
            'roll back to',
          );
        }
        const result = await rollbackVersion(db, scope);
        if (options.json) out.info(JSON.stringify(result));
        else out.info(`Rolled back: ${result.version} is active again (was ${result.previous}).`);
        await retain(out, () => applyRetention(db, store, config.lifecycle.modelKeep, scope));
      });
    });
}

/** Retention after a promotion; its outcome goes to stderr, so `--json` stays one line. */
async function retain(out: CliOutput, apply: () => Promise<RetentionResult>): Promise<void> {
  try {
    const { removed, swept } = await apply();
    if (removed.length > 0) {
      out.error(
        `Removed the files of ${removed.length} old version(s) (KGC_MODEL_KEEP): ${removed.join(', ')}`,
      );
    }
    const abandoned = swept && describeSweep(swept);
    if (abandoned) out.error(`${abandoned[0]?.toUpperCase()}${abandoned.slice(1)}`);
  } catch (error) {
    out.error(`Could not apply retention (KGC_MODEL_KEEP): ${(error as Error).message}`);
  }
}

export function modelsCommand(out: CliOutput): Command {
  return new Command('models')
    .description('model versions in the registry: list, show, promote, rollback')
    .addCommand(listCommand(out))
    .addCommand(showCommand(out))
    .addCommand(promoteCommand(out))
    .addCommand(rollbackCommand(out));
}
