import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { connectorSchedulerId, syncQueueName } from './queues.ts';
import { SyncScheduler } from './sync-scheduler.ts';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0', { maxRetriesPerRequest: null });
const scheduler = new SyncScheduler(redis, syncQueueName(`t_${randomBytes(4).toString('hex')}`));

afterAll(async () => {
  await scheduler.queue.obliterate({ force: true });
  await scheduler.close();
  redis.disconnect();
});

describe('SyncScheduler.ensureSchedules', () => {
  it('re-creates only the lost, changed or stuck schedules and leaves the healthy ones and their next run alone', async () => {
    const hour = 3_600_000;
    for (const id of ['a', 'b', 'c', 'd']) await scheduler.schedule(id, hour);
    const nextOf = async (id: string) => (await scheduler.queue.getJobScheduler(connectorSchedulerId(id)))?.next;
    const nextOfA = await nextOf('a');

    await scheduler.unschedule('b'); // lost (as after a Redis restart without persistence)
    await scheduler.schedule('c', 2 * hour); // another interval than the configured one
    // d's next run overdue by more than an interval: its waiting job is gone.
    const repeatKey = `${scheduler.queue.keys.repeat}`;
    await redis.zadd(repeatKey, Date.now() - 2 * hour, connectorSchedulerId('d'));

    expect(await scheduler.ensureSchedules(['a', 'b', 'c', 'd', 'e'], hour)).toBe(4);
    expect(await nextOf('a')).toBe(nextOfA);
    for (const id of ['b', 'c', 'd', 'e']) {
      expect((await scheduler.queue.getJobScheduler(connectorSchedulerId(id)))?.every).toBe(hour);
      expect(await nextOf(id)).toBeGreaterThan(Date.now());
    }
    expect(await scheduler.ensureSchedules(['a', 'b', 'c', 'd', 'e'], hour)).toBe(0);
  });
});
