/** Parts of the conformance options that most kinds spell the same way, with only the vendor's values differing. */
import type { Fault } from '../simulators/kit/faults.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import type { ConformanceOptions, RequestOf, Storm } from './conformance-options.ts';

type Unsupported = NonNullable<ConformanceOptions<SimulatorHandle, unknown, unknown>['unsupported']>[number];

/** Three 429s with `Retry-After: 0` (on paths containing `pathIncludes`, when given), which every kind waits out. */
export function retryAfterStorm<H extends SimulatorHandle>(request: RequestOf<H>, pathIncludes?: string): Storm<H> {
  return {
    label: '429 honouring Retry-After',
    fault: { status: 429, count: 3, retryAfterSeconds: 0, ...(pathIncludes === undefined ? {} : { pathIncludes }) },
    request,
  };
}

/** A list of an entity name the kind does not have, whose error must mention the entity it meant. */
export function misspeltEntity(entity: string, mentions: string): Unsupported {
  return { entity, action: 'list', mentions };
}

/** An action the entity does not offer, whose error must mention the actions it does. */
export function missingAction(entity: string, action: string, mentions: string): Unsupported {
  return { entity, action, mentions };
}

/** An upstream error on `request`, answered once with `reply`, whose body echoes the named credentials back. */
export function echoedCredentials<H extends SimulatorHandle>(
  request: RequestOf<H>,
  names: readonly string[],
  reply: (planted: string) => Omit<Fault, 'count'>,
): NonNullable<ConformanceOptions<H, unknown, unknown>['echo']> {
  return {
    request,
    secrets: (sim) => names.map((name) => String(sim.credentials[name])),
    fault: (planted) => ({ count: 1, ...reply(planted) }),
  };
}
