import type { PlatformEnv } from '@conduit/config';
import { createLogger } from '@conduit/observability';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Purge, startRetention } from './retention.ts';

const env = { RETENTION_INTERVAL: '1h' } as Pick<PlatformEnv, 'RETENTION_INTERVAL'>;

function recordingLogger() {
  const lines: { message: string; [key: string]: unknown }[] = [];
  const logger = createLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('startRetention', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs every purge at once and then every RETENTION_INTERVAL, logging what one pass removed', async () => {
    vi.useFakeTimers();
    const { logger, lines } = recordingLogger();
    const calls: string[] = [];
    const purge = (name: string, removed: number): Purge => ({
      name,
      run: async () => {
        calls.push(name);
        return removed;
      },
    });
    const stop = startRetention({ env, logger }, [purge('audit_entries', 2), purge('events', 0)]);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual(['audit_entries', 'events']);
    expect(lines.find((l) => l.message === 'retention removed old rows')).toMatchObject({
      audit_entries: 2,
      events: 0,
    });

    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(calls).toHaveLength(4);
    stop();
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(calls).toHaveLength(4);
  });

  it('logs a failed purge, runs the others, and tries it again next interval', async () => {
    vi.useFakeTimers();
    const { logger, lines } = recordingLogger();
    let attempts = 0;
    const flaky: Purge = {
      name: 'idempotency_keys',
      run: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('database away');
        return 1;
      },
    };
    let others = 0;
    const steady: Purge = { name: 'events', run: async () => ++others };
    const stop = startRetention({ env, logger }, [flaky, steady]);
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.find((l) => l.message === 'retention failed')).toMatchObject({ purge: 'idempotency_keys' });
    // One purge's failure does not keep the others from running.
    expect(others).toBe(1);
    expect(lines.find((l) => l.message === 'retention removed old rows')).toMatchObject({ events: 1 });
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(attempts).toBe(2);
    expect(lines.findLast((l) => l.message === 'retention removed old rows')).toMatchObject({ idempotency_keys: 1 });
    stop();
  });
});
