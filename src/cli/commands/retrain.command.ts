import os from 'node:os';
import { Command } from 'commander';
import { ErrorCode, KgcError } from '../../errors';
import { requestRetraining } from '../../graph/registry';
import type { CliOutput } from '../cli-output';
import { withLifecycleDatabase } from './lifecycle-context';

export function retrainCommand(out: CliOutput): Command {
  return new Command('retrain')
    .description('ask the worker (`kgc worker`) to retrain soon')
    .option('--request', 'record a retraining request (the worker polls for them)')
    .option('--json', 'print the request as JSON')
    .action(async (options: { request?: boolean; json?: boolean }) => {
      if (!options.request) {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          'Use `kgc retrain --request` (the worker runs it), or `kgc train` to train here and now.',
        );
      }
      await withLifecycleDatabase(async (db, config) => {
        const request = await requestRetraining(
          db,
          { requestedBy: `cli:${os.userInfo().username}` },
          config.lifecycle.registryScope,
        );
        if (options.json) out.info(JSON.stringify(request));
        else out.info(`Retraining requested (${request.id}, ${request.requestedAt}).`);
      });
    });
}
