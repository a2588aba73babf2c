import { type PlatformEnv, readEnv } from '@conduit/config';
import { createLogger, type Logger } from './logger.ts';

/**
 * What a process that cannot start says before it exits: one readable line on stderr, written
 * synchronously (an asynchronous logger may not flush before exit), naming the cause behind wrappers and
 * AggregateErrors (a refused connection to "localhost" is an AggregateError with an empty message).
 */
export function describeStartupError(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number) => {
    if (depth > 4 || seen.has(e)) return;
    seen.add(e);
    if (e instanceof AggregateError && e.errors.length > 0) {
      if (e.message) parts.push(e.message);
      for (const inner of e.errors.slice(0, 3)) visit(inner, depth + 1);
      return;
    }
    if (e instanceof Error) {
      const code = (e as { code?: unknown }).code;
      const text = e.message || e.name;
      parts.push(typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text);
      if (e.cause !== undefined) visit(e.cause, depth + 1);
      return;
    }
    parts.push(String(e));
  };
  visit(error, 0);
  return [...new Set(parts.filter(Boolean))].join(': ') || 'unknown error';
}

/** Writes `<service> could not start: <reason>` to stderr and exits with status 1. */
export function exitOnStartupFailure(service: string, error: unknown): never {
  process.stderr.write(`${service} could not start: ${describeStartupError(error)}\n`);
  process.exit(1);
}

/** What a process starts with: its configuration (unreadable: it says why and exits) and its logger. */
export function startProcess(service: 'api' | 'worker'): { env: PlatformEnv; logger: Logger } {
  let env: PlatformEnv;
  try {
    env = readEnv();
  } catch (error) {
    exitOnStartupFailure(service, error);
  }
  return { env, logger: createLogger({ level: env.LOG_LEVEL, base: { service } }) };
}
