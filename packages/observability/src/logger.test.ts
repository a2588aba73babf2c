import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

function capture(level: 'debug' | 'info' | 'warn' | 'error' = 'info') {
  const lines: string[] = [];
  const logger = createLogger({ level, base: { service: 'test' }, write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it('writes one JSON line per call with time, level, message, base and fields', () => {
    const { logger, parsed, lines } = capture();
    logger.info('hello', { n: 1 });
    logger.warn('plain');
    expect(lines).toHaveLength(2);
    const [first, second] = parsed();
    expect(first).toMatchObject({ level: 'info', message: 'hello', service: 'test', n: 1 });
    expect(Number.isNaN(Date.parse(String(first?.time)))).toBe(false);
    expect(second).toMatchObject({ level: 'warn', message: 'plain' });
  });

  it("gives a child's lines its fields and its parents', each name once, the line's own value first", () => {
    const { logger, lines, parsed } = capture();
    const request = logger.child({ request_id: 'r1', step: 'auth' }).child({ client_id: 'c1', step: 'search' });
    request.info('request', { status: 200, step: 'answer' });
    request.info('second');
    expect(lines[0]!.match(/"step"/g)).toHaveLength(1);
    expect(parsed()).toEqual([
      expect.objectContaining({ service: 'test', request_id: 'r1', client_id: 'c1', status: 200, step: 'answer' }),
      expect.objectContaining({ message: 'second', request_id: 'r1', client_id: 'c1', step: 'search' }),
    ]);
  });

  it('logs the cause of a wrapped error, redacted like the rest', () => {
    const { logger, parsed } = capture();
    const cause = Object.assign(new Error('engine timed out'), { code: 'ETIMEDOUT' });
    logger.error('failed', { error: new Error('the search index did not answer', { cause }) });
    expect(parsed()[0]).toMatchObject({
      error: {
        name: 'Error',
        message: 'the search index did not answer',
        cause: { message: 'engine timed out', code: 'ETIMEDOUT' },
      },
    });
  });

  it('drops lines below its level', () => {
    const { logger, lines } = capture('warn');
    logger.debug('d');
    logger.info('i');
    logger.error('e');
    expect(lines).toHaveLength(1);
  });

  it('masks secret-looking fields at any depth, in arrays, in child fields and in the base', () => {
    const lines: string[] = [];
    const logger = createLogger({ base: { api_key: 'base-secret' }, write: (line) => lines.push(line) });
    const child = logger.child({ authorization: 'Bearer child-secret', request_id: 'r1' });
    child.info('call', {
      upstream: { headers: { Authorization: 'Bearer deep-secret', accept: 'json' } },
      attempts: [{ client_secret: 'array-secret' }],
      credentials: { api_key: 'whole-object-secret' },
      nested: { a: { b: { refresh_token: 'very-deep-secret' } } },
    });
    const text = lines.join('\n');
    for (const secret of ['base-secret', 'child-secret', 'deep-secret', 'array-secret', 'whole-object', 'very-deep'])
      expect(text).not.toContain(secret);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      api_key: '[REDACTED]',
      authorization: '[REDACTED]',
      request_id: 'r1',
      upstream: { headers: { Authorization: '[REDACTED]', accept: 'json' } },
      credentials: '[REDACTED]',
    });
  });

  it('logs errors as name, message and code, without their other properties', () => {
    const { logger, parsed } = capture();
    const error = Object.assign(new Error('upstream refused'), { code: 'E_UP', config: { token: 'leaky' } });
    logger.error('failed', { error });
    expect(parsed()[0]?.error).toEqual({ name: 'Error', message: 'upstream refused', code: 'E_UP' });
  });
});
