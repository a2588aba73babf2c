import { createLogger, readEnv, upstreamOverrides } from '@conduit/platform';
import { createWorkerRuntime } from './runtime.ts';

const env = readEnv();
const logger = createLogger({ level: env.LOG_LEVEL, base: { service: 'worker' } });
const runtime = await createWorkerRuntime(env, upstreamOverrides(), { logger });

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info('worker stopping', { signal });
  const force = setTimeout(() => process.exit(1), 30_000);
  force.unref();
  await runtime.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
