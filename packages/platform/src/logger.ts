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

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /secret|token|password|passwd|api_?key|authorization|credential|cookie|signature/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error)
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[REDACTED]' : redact(v, depth + 1)]),
  );
}

export function createLogger(
  options: { level?: LogLevel; base?: LogFields; write?: (line: string) => void } = {},
): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const base = options.base ?? {};
  const log = (level: LogLevel, message: string, fields?: LogFields) => {
    if (ORDER[level] < min) return;
    write(
      JSON.stringify({
        time: new Date().toISOString(),
        level,
        message,
        ...(redact({ ...base, ...fields }) as LogFields),
      }),
    );
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
  };
}
