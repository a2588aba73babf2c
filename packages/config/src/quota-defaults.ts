import { z } from 'zod';

/** The quotas an organization can have (docs/operations.md, "Usage and quotas"). */
export const QUOTA_NAMES = ['connectors', 'records', 'requests_per_day', 'definitions'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];
/** A limit per quota; a quota that is absent has no limit. */
export type QuotaLimits = Readonly<Partial<Record<QuotaName, number>>>;

const isQuotaName = (name: string): name is QuotaName => (QUOTA_NAMES as readonly string[]).includes(name);

/**
 * QUOTA_DEFAULTS: `connectors=100,records=1000000,requests_per_day=1000000,definitions=20`; every organization's
 * quota unless an operator set its own. An empty value (the default): no limits.
 */
export const QuotaDefaults = z
  .string()
  .default('')
  .transform((text, ctx): QuotaLimits => {
    const limits: Partial<Record<QuotaName, number>> = {};
    for (const part of text.split(',').map((p) => p.trim())) {
      if (part === '') continue;
      const [name = '', value = ''] = part.split('=').map((s) => s.trim());
      if (!isQuotaName(name)) {
        ctx.addIssue({ code: 'custom', message: `unknown quota "${name}" (quotas: ${QUOTA_NAMES.join(', ')})` });
      } else if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
        ctx.addIssue({ code: 'custom', message: `${name}: the limit must be a whole number, got "${value}"` });
      } else {
        limits[name] = Number(value);
      }
    }
    return limits;
  });
