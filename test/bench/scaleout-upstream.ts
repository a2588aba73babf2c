import { startOrbSimulator } from '../simulators/orb/simulator.ts';

/**
 * The scale-out benchmark's upstream in its own process (so the workers, not the load they are measured
 * against, use this process's CPU): the Orb simulator with a per-request latency, as a real API has. Prints its
 * URL and key as one JSON line, then serves until killed.
 */
const sim = await startOrbSimulator({
  customers: Number(process.env.SCALEOUT_CUSTOMERS ?? 100),
  from: '2024-01-01T00:00:00Z',
  latencyMs: Number(process.env.SCALEOUT_LATENCY_MS ?? 150),
});
process.stdout.write(`${JSON.stringify({ url: sim.url, apiKey: sim.apiKey })}\n`);
process.on('SIGTERM', () => void sim.close().then(() => process.exit(0)));
