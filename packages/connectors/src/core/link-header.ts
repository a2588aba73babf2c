export interface LinkTarget {
  readonly url: string;
  readonly results: boolean;
  readonly cursor: string;
}

/**
 * RFC 8288 `Link` header, as Sentry pages (https://docs.sentry.io/api/pagination/): one entry per direction,
 * `<url>; rel="next"; results="true"; cursor="0:100:0"`. `results="false"` means there is no such page,
 * even though the entry (and its cursor) is always present.
 */
export function parseLinkHeader(header: string | null): Record<string, LinkTarget> {
  const out: Record<string, LinkTarget> = {};
  if (!header) return out;
  for (const part of header.split(/,\s*(?=<)/)) {
    const url = /^\s*<([^>]*)>/.exec(part)?.[1];
    const attributes = Object.fromEntries([...part.matchAll(/;\s*([a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const rel = attributes.rel;
    if (url === undefined || !rel) continue;
    out[rel] = { url, results: attributes.results === 'true', cursor: attributes.cursor ?? '' };
  }
  return out;
}
