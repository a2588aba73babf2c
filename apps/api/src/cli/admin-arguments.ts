/**
 * The admin CLI's checks of what the operator typed. Nothing here loads the configuration, database or Redis
 * modules, so a mistake is reported before the CLI loads them (most of a call's start-up CPU).
 */

/** A mistake of the operator (bad arguments, unknown ids): printed as is, exit code 2. */
export class AdminUsageError extends Error {
  override name = 'AdminUsageError';
}

const ID = /^[A-Za-z0-9._:-]{1,200}$/;

export function requireId(value: string | undefined, what: string): string {
  if (value === undefined) throw new AdminUsageError(`missing ${what}`);
  if (!ID.test(value)) throw new AdminUsageError(`invalid ${what} '${value}': letters, digits and . _ : - only`);
  return value;
}

export function requireRedirectUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AdminUsageError(`invalid --redirect-url '${value}': not an absolute URL`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || value.includes('#')) {
    throw new AdminUsageError(`invalid --redirect-url '${value}': http(s) without a fragment`);
  }
  return value;
}

/** A quota's limit: a whole number, or `default` (the operator's limit removed: QUOTA_DEFAULTS applies again). */
export function requireLimit(value: string | undefined): number | null {
  if (value === undefined) throw new AdminUsageError('missing limit (a whole number, or default)');
  if (value === 'default') return null;
  if (!/^\d{1,15}$/.test(value)) throw new AdminUsageError(`invalid limit '${value}': a whole number, or default`);
  return Number(value);
}
