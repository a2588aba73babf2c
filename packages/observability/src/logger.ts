import { currentTraceId } from '@conduit/tracing';
import { pino } from 'pino';

/**
 * Structured JSON logs with redaction in one place: any field whose name suggests a secret is masked,
 * at any depth, before a line is written. Callers never format credentials into messages.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const SECRET_KEY = /secret|token|password|passwd|api_?key|authorization|credential|cookie|signature/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (isFlatAndClean(value)) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) {
    // The error a wrapping error stands for (`new ApiError(…, { cause })`) is what the line is about.
    const cause = value.cause === undefined ? {} : { cause: redact(value.cause, depth + 1) };
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code, ...cause };
  }
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[REDACTED]' : redact(v, depth + 1)]),
  );
}

/** Most lines (a request's method, path, status, ids): nothing nested, nothing secret, nothing to copy. */
function isFlatAndClean(value: object): boolean {
  if (Array.isArray(value) || value instanceof Error) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const field = (value as Record<string, unknown>)[key];
    if ((field !== null && typeof field === 'object') || SECRET_KEY.test(key)) return false;
  }
  return true;
}

const NO_FIELDS = Object.freeze({});

/**
 * pino underneath: lines are built without intermediate objects and, in production, written asynchronously
 * (sonic-boom; flushed on exit), so logging stays off the request's critical path. `write` (tests) receives each
 * line synchronously instead. Every line and every child's fields pass through `redact` first.
 */
export function createLogger(
  options: { level?: LogLevel; base?: LogFields; write?: (line: string) => void } = {},
): Logger {
  const write = options.write;
  const destination = write
    ? { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) }
    : // Lines gather up to 4 KiB (or 100 ms) per write rather than a system call per line; pino flushes what is
      // buffered when the process exits.
      pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 });
  const root = pino(
    {
      level: options.level ?? 'info',
      base: redact(options.base ?? {}) as LogFields,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      // The active trace's id on every line written inside a span; nothing, and nothing allocated, when tracing is
      // off. pino merges a line's fields into the mixin's object, so the shared empty one is never merged into.
      mixin: () => {
        const traceId = currentTraceId();
        return traceId === undefined ? NO_FIELDS : { trace_id: traceId };
      },
      mixinMergeStrategy: (fields: object, mixed: object) =>
        mixed === NO_FIELDS ? fields : Object.assign(mixed, fields),
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redact(bindings) as LogFields,
        log: (fields) => redact(fields) as LogFields,
      },
    },
    destination,
  );
  return wrap(root);
}

function wrap(logger: pino.Logger): Logger {
  return new BoundLines(logger, undefined);
}

/**
 * A child is only its fields, merged into each of its lines, which the root writes (and redacts, with the rest of
 * the line). Not pino's own `child`: pino writes a child's bindings apart from the line's fields, so a field named in
 * both appears twice in the JSON line, and its child bindings skip the `bindings` formatter that redacts; nor pino's
 * `redact` option, which takes exact paths where a secret here is any field named like one, at any depth
 * (https://getpino.io/#/docs/redaction). Fields of nested children merge; a line's own field wins.
 */
class BoundLines implements Logger {
  readonly #root: pino.Logger;
  readonly #bound: LogFields | undefined;

  constructor(root: pino.Logger, bound: LogFields | undefined) {
    this.#root = root;
    this.#bound = bound;
  }

  debug(message: string, fields?: LogFields): void {
    this.#line('debug', message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.#line('info', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.#line('warn', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.#line('error', message, fields);
  }

  child(fields: LogFields): Logger {
    return new BoundLines(this.#root, this.#bound ? { ...this.#bound, ...fields } : fields);
  }

  /** A line below the logger's level builds nothing. */
  #line(level: LogLevel, message: string, fields: LogFields | undefined): void {
    const root = this.#root;
    if (!root.isLevelEnabled(level)) return;
    const bound = this.#bound;
    const merged = bound && fields ? { ...bound, ...fields } : (bound ?? fields);
    if (merged) root[level](merged, message);
    else root[level](message);
  }
}
