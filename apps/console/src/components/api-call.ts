import { useState } from 'preact/hooks';
import { asProblem, type Problem } from '../api.ts';

/** An API call's busy flag and problem, as the console's forms show them. */
export function useApiCall() {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  /** Runs `call` with the busy flag up and the last problem cleared; a failure becomes the problem. */
  const run = async (call: () => Promise<void>, onFailure?: () => void): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      await call();
    } catch (error) {
      onFailure?.();
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return { busy, setBusy, problem, setProblem, run };
}
