import { SUBDOMAIN_PATTERN } from './common-schemas.ts';
import { ConnectorError } from './errors.ts';

/**
 * Fills the `{name}` placeholders of a kind's URL (its base, token and authorize URLs, or their overrides) from
 * the connector's config. Only values matching SUBDOMAIN_PATTERN go in: a config value can never
 * change the host or the path. Returns the missing or invalid variable names instead when it cannot.
 *
 * @example fillUrl('https://{subdomain}.zendesk.com/oauth/tokens', { subdomain: 'acme' })
 */
export function fillUrl(template: string, config: unknown): { url: string } | { invalid: string[] } {
  const invalid: string[] = [];
  const values = typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
  const url = template.replaceAll(/\{(\w+)\}/g, (_, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (typeof value !== 'string' || !SUBDOMAIN_PATTERN.test(value)) {
      invalid.push(name);
      return '';
    }
    return encodeURIComponent(value);
  });
  return invalid.length > 0 ? { invalid } : { url };
}

/** fillUrl for a connector being built: a missing or invalid variable is the caller's invalid config. */
export function fillUrlOrThrow(template: string, config: unknown): string {
  const filled = fillUrl(template, config);
  if ('url' in filled) return filled.url;
  throw new ConnectorError(
    'invalid_request',
    'invalid config',
    filled.invalid.map((name) => ({ path: `/config/${name}`, message: `is required: ${SUBDOMAIN_PATTERN.source}` })),
  );
}
