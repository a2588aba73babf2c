import { z } from 'zod';

/** The quotas an organization can have (docs/operations.md, "Usage and quotas"). */
export const QUOTA_NAMES = ['connectors', 'records', 'requests_per_day', 'definitions'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];
/** A limit per quota; a quota that is absent has no limit. */
export type QuotaLimits = Readonly<Partial<Record<QuotaName, number>>>;

const isQuotaName = (name: string): name is QuotaName => (QUOTA_NAMES as readonly string[]).includes(name);

/**
 * QUOTA_DEFAULTS (`connectors=100,records=1000000,requests_per_day=1000000,definitions=20`) as limits, or the
 * problems of the text. Empty: no limits.
 */
function parse(text: string): { limits: QuotaLimits; problems: string[] } {
  const limits: Partial<Record<QuotaName, number>> = {};
  const problems: string[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const [name = '', value = ''] = part.split('=').map((s) => s.trim());
    if (!isQuotaName(name)) problems.push(`unknown quota "${name}" (quotas: ${QUOTA_NAMES.join(', ')})`);
    else if (!/^\d{1,15}$/.test(value)) problems.push(`${name}: the limit must be a whole number, got "${value}"`);
    else limits[name] = Number(value);
  }
  return { limits, problems };
}

/**
 * The variable, checked when the configuration is read; it stays text in the parsed configuration (which child
 * processes and other instances receive as environment again), read as limits by `quotaDefaultsOf`.
 */
export const QuotaDefaults = z
  .string()
  .default('')
  .superRefine((text, ctx) => {
    for (const message of parse(text).problems) ctx.addIssue({ code: 'custom', message });
  });

/** Every organization's quotas unless an operator set its own (QUOTA_DEFAULTS, already checked by readEnv). */
export function quotaDefaultsOf(text: string): QuotaLimits {
  return parse(text).limits;
}
