import type { StartSimulator } from './kit/fixture.ts';
import { startOrb } from './orb/simulator.ts';

/** Every kind's simulator, by connector_type. Kinds register here as their simulators land. */
export const SIMULATORS: Readonly<Record<string, StartSimulator>> = {
  Orb: startOrb,
};
