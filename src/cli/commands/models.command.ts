import { Command } from 'commander';
import { getVersion, listVersions, promoteVersion, rollbackVersion } from '../../graph/registry';
import type { ModelVersionRecord } from '../../graph/registry';
import type { CliOutput } from '../cli-output';
import { withLifecycleDatabase } from './lifecycle-context';

interface JsonOption {
  json?: boolean;
}

function testMrr(v: ModelVersionRecord): string {
  return v.testMrr === null ? 'n/a' : v.testMrr.toFixed(4);
}

/** The fields `models list --json` promises, one object per version. */
function listItem(v: ModelVersionRecord) {
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
  };
}

function listCommand(out: CliOutput): Command {
  return new Command('list')
    .description('every model version, newest first: status, test MRR, trigger')
    .option('--json', 'one JSON array')
    .action(async (options: JsonOption) => {
      await withLifecycleDatabase(async (db, config) => {
        const versions = await listVersions(db, config.lifecycle.registryScope);
        if (options.json) {
          out.info(JSON.stringify(versions.map(listItem)));
          return;
        }
        if (versions.length === 0) out.info('No model versions yet: run `npx kgc train`.');
        for (const v of versions) {
          out.info(
            `${v.active ? '*' : ' '} ${v.version}  ${v.status.padEnd(9)}  test MRR ${testMrr(v)}  ` +
              `${v.triples} triples  ${v.trigger}  ${v.createdAt}`,
          );
        }
      });
    });
}

function showCommand(out: CliOutput): Command {
  return new Command('show')
    .description('one version: metrics (overall and per relation), gate, snapshot, directory')
    .argument('<version>', 'a version id from `kgc models list`')
    .option('--json', 'the record as JSON')
    .action(async (version: string, options: JsonOption) => {
      await withLifecycleDatabase(async (db, config) => {
        const v = await getVersion(db, version, config.lifecycle.registryScope);
        if (options.json) {
          out.info(JSON.stringify(v));
          return;
        }
        out.info(`${v.version}: ${v.status}${v.active ? ' (active)' : ''}, test MRR ${testMrr(v)}`);
        out.info(`created ${v.createdAt} by ${v.trigger}; promoted ${v.promotedAt ?? 'never'}`);
        out.info(
          `snapshot: ${v.triples} triples, ${v.entities} entities, ${v.relations} relations`,
        );
        out.info(`fingerprint ${v.fingerprint}; files in ${v.dir}`);
        if (v.gate) out.info(`gate: ${JSON.stringify(v.gate)}`);
        if (v.metrics) out.info(`metrics: ${JSON.stringify(v.metrics)}`);
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
        const result = await promoteVersion(db, version, config.lifecycle.registryScope);
        if (options.json) out.info(JSON.stringify(result));
        else out.info(`Active: ${result.version} (was ${result.previous ?? 'none'}).`);
      });
    });
}

function rollbackCommand(out: CliOutput): Command {
  return new Command('rollback')
    .description('re-activate the version that was active before the current one')
    .option('--json', 'print the outcome as JSON')
    .action(async (options: JsonOption) => {
      await withLifecycleDatabase(async (db, config) => {
        const result = await rollbackVersion(db, config.lifecycle.registryScope);
        if (options.json) out.info(JSON.stringify(result));
        else out.info(`Rolled back: ${result.version} is active again (was ${result.previous}).`);
      });
    });
}

export function modelsCommand(out: CliOutput): Command {
  return new Command('models')
    .description('model versions in the registry: list, show, promote, rollback')
    .addCommand(listCommand(out))
    .addCommand(showCommand(out))
    .addCommand(promoteCommand(out))
    .addCommand(rollbackCommand(out));
}
