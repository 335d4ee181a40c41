import { Command } from 'commander';
import { API_ROLES, ApiRole } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { createApiKey } from '../../server/api-keys';
import type { CliOutput } from '../cli-output';

const NAME = /^[A-Za-z0-9_.@-]{1,64}$/;

export function apikeyCommand(out: CliOutput): Command {
  const create = new Command('create')
    .description('Print a new random API key (once) and the KGC_API_KEYS entry that admits it')
    .requiredOption('--name <name>', 'who uses the key (recorded on every decision it makes)')
    .requiredOption('--role <role>', `one of ${API_ROLES.join(', ')}`)
    .option('--json', 'print {name, role, key, entry} as JSON')
    .action((options: { name: string; role: string; json?: boolean }) => {
      if (!NAME.test(options.name)) {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          '--name must be 1-64 letters, digits or _.@- characters.',
        );
      }
      if (!(API_ROLES as readonly string[]).includes(options.role)) {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          `--role must be one of ${API_ROLES.join(', ')}, got "${options.role}".`,
        );
      }
      const { key, entry } = createApiKey(options.name, options.role as ApiRole);
      if (options.json) {
        out.info(JSON.stringify({ name: options.name, role: options.role, key, entry }));
        return;
      }
      out.info(`API key for "${options.name}" (${options.role}); shown once, store it now:`);
      out.info(`  ${key}`);
      out.info('Add this entry to KGC_API_KEYS (comma-separated; only the hash is kept):');
      out.info(`  ${entry}`);
      out.info('Clients send: Authorization: Bearer <key>');
    });
  return new Command('apikey').description('Manage API keys').addCommand(create);
}
