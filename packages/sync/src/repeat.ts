/**
 * Runs `task` now and then `intervalMs` after each run ends, until the returned stop is called. The task reports
 * its own failures: a run that throws is handed to `onError`, and the next one comes on time all the same.
 */
export function repeatEvery(intervalMs: number, task: () => Promise<void>, onError: (error: unknown) => void) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    try {
      await task();
    } catch (error) {
      onError(error);
    }
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  void tick();
  return (): void => {
    stopped = true;
    clearTimeout(timer);
  };
}
