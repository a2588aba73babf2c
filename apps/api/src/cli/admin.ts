import { parseArgs } from 'node:util';
import type { QuotaLimits } from '@conduit/config';
import { AdminUsageError, requireId, requireLimit, requireRedirectUrl } from './admin-arguments.ts';
// What loads the configuration, the database and Redis (most of a call's start-up CPU) is imported once the
// arguments are checked: a mistake is reported without loading them, and only the commands that tell the API
// instances of a revocation load the Redis client.
import type { AdminCommands } from './admin-commands.ts';

const USAGE = `usage: node apps/api/src/cli/admin.ts <command>

  create-org <id> [name]                       create an organization (idempotent)
  create-client <client_id> --org <id> [--org <id2>] [--redirect-url <url>]...
                                               create an API client; prints its secret ONCE
  rotate-secret <client_id>                    issue a new client secret (the old one stops working); printed ONCE;
                                               the tokens issued before are refused within seconds
  revoke-tokens <client_id>                    refuse every token issued so far (the secret keeps working)
  delete-client <client_id>                    remove a client, its grants and its tokens (connectors stay)
  grant <client_id> <org>                      let a client act for another organization
  list-connectors <org>                        connectors of an organization (never their credentials)
  set-quota <org> <quota> <limit|default>      set a quota (connectors, records, requests_per_day, definitions);
                                               default: back to QUOTA_DEFAULTS; every API and worker applies it
                                               within seconds (a sync paused at the records quota resumes)
  show-quotas <org>                            each quota's limit (null: none) and what is used now

Reads DATABASE_URL (and the rest of the configuration) from the environment. Output is JSON on stdout.`;

const OPTIONS = {
  org: { type: 'string', multiple: true },
  'redirect-url': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Options each command accepts; anything else is a usage error rather than silently ignored. */
const ALLOWED_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'create-org': [],
  'create-client': ['org', 'redirect-url'],
  'rotate-secret': [],
  'revoke-tokens': [],
  'delete-client': [],
  grant: [],
  'list-connectors': [],
  'set-quota': [],
  'show-quotas': [],
};

async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new AdminUsageError((error as Error).message);
  }
  const [command, ...args] = parsed.positionals;
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const allowed = ALLOWED_OPTIONS[command];
  if (!allowed) throw new AdminUsageError(`unknown command '${command}'`);
  for (const option of Object.keys(parsed.values)) {
    if (option !== 'help' && !allowed.includes(option)) {
      throw new AdminUsageError(`${command} does not take --${option}`);
    }
  }
  const maxArgs = command === 'set-quota' ? 3 : command === 'create-org' || command === 'grant' ? 2 : 1;
  if (args.length > maxArgs) throw new AdminUsageError(`${command}: unexpected argument '${args[maxArgs]}'`);

  const run = checkedCommand(command, args, parsed.values);

  const [{ quotaDefaultsOf, readEnv }, { createDatabase, ensureDatabaseExists, migrateToLatest }, { AdminCommands }] =
    await Promise.all([import('@conduit/config'), import('@conduit/db'), import('./admin-commands.ts')]);
  const env = readEnv();
  await ensureDatabaseExists(env.DATABASE_URL);
  const db = createDatabase(env.DATABASE_URL, 2);
  try {
    await migrateToLatest(db);
    const admin = new AdminCommands(db);
    process.stdout.write(`${JSON.stringify(await run.call(admin, quotaDefaultsOf(env.QUOTA_DEFAULTS)), null, 2)}\n`);
    if (run.notice) process.stderr.write(`${run.notice}\n`);
    if (run.revokes) await announceRevocation(env, run.revokes);
    return 0;
  } finally {
    await db.destroy();
  }
}

interface CheckedCommand {
  /** What the command does with the database; its result is printed. */
  readonly call: (admin: AdminCommands, defaults: QuotaLimits) => Promise<unknown>;
  /** Printed on stderr after the result. */
  readonly notice?: string;
  /** The client whose tokens the API instances are told to forget. */
  readonly revokes?: string;
}

/** A command whose arguments are checked (AdminUsageError otherwise), ready to run against the database. */
function checkedCommand(
  command: string,
  args: readonly string[],
  values: { org?: string[]; 'redirect-url'?: string[] },
): CheckedCommand {
  switch (command) {
    case 'create-org': {
      const id = requireId(args[0], 'organization id');
      return { call: (admin) => admin.createOrg(id, args[1] ?? id) };
    }
    case 'create-client': {
      const clientId = requireId(args[0], 'client_id');
      const orgs = (values.org ?? []).map((o) => requireId(o, 'organization id'));
      const urls = (values['redirect-url'] ?? []).map(requireRedirectUrl);
      return {
        call: (admin) => admin.createClient(clientId, orgs, urls),
        notice: 'store client_secret now: it is not stored in clear and will not be shown again',
      };
    }
    case 'rotate-secret': {
      const clientId = requireId(args[0], 'client_id');
      return {
        call: (admin) => admin.rotateSecret(clientId),
        notice: 'store client_secret now: it will not be shown again; the old secret no longer works',
        revokes: clientId,
      };
    }
    case 'revoke-tokens': {
      const clientId = requireId(args[0], 'client_id');
      return { call: (admin) => admin.revokeTokens(clientId), revokes: clientId };
    }
    case 'delete-client': {
      const clientId = requireId(args[0], 'client_id');
      return { call: (admin) => admin.deleteClient(clientId), revokes: clientId };
    }
    case 'grant': {
      const clientId = requireId(args[0], 'client_id');
      const org = requireId(args[1], 'organization id');
      return { call: (admin) => admin.grant(clientId, org) };
    }
    case 'list-connectors': {
      const org = requireId(args[0], 'organization id');
      return { call: (admin) => admin.listConnectors(org) };
    }
    case 'set-quota': {
      const org = requireId(args[0], 'organization id');
      const quota = requireId(args[1], 'quota');
      const limit = requireLimit(args[2]);
      return { call: (admin, defaults) => admin.setQuota(org, quota, limit, defaults) };
    }
    case 'show-quotas': {
      const org = requireId(args[0], 'organization id');
      return { call: (admin, defaults) => admin.showQuotas(org, defaults) };
    }
    default:
      throw new AdminUsageError(`unknown command '${command}'`);
  }
}

/**
 * Tells every API instance to forget what it remembers of the client, so its old tokens are refused at once.
 * Best effort: an instance that misses it reads the client again within seconds anyway (ClientAccessCache's TTL).
 */
async function announceRevocation(
  env: { REDIS_URL: string; REDIS_CLUSTER_NODES: string; NAMESPACE: string },
  clientId: string,
): Promise<void> {
  const [{ connectRedis }, { clientAccessChannel }] = await Promise.all([
    import('@conduit/queues/redis-connection'),
    import('../services/client-access.ts'),
  ]);
  const redis = connectRedis(env, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.publish(clientAccessChannel(env.NAMESPACE), clientId);
  } catch (error) {
    process.stderr.write(
      `admin: could not notify the API instances (${(error as Error).message}); they refuse the old tokens within seconds anyway\n`,
    );
  } finally {
    redis.disconnect();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const message = error instanceof AdminUsageError ? error.message : `failed: ${(error as Error).message}`;
  process.stderr.write(`admin: ${message}\n${error instanceof AdminUsageError ? 'run with --help for usage\n' : ''}`);
  process.exitCode = 2;
}
