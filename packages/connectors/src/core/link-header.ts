export interface LinkTarget {
  readonly url: string;
  readonly results: boolean;
  readonly cursor: string;
}

/**
 * RFC 8288 `Link` header (https://www.rfc-editor.org/rfc/rfc8288), one entry per direction. Sentry pages so
 * (https://docs.sentry.io/api/pagination/): `<url>; rel="next"; results="true"; cursor="0:100:0"`, where
 * `results="false"` means there is no such page, even though the entry (and its cursor) is always present.
 */
export function parseLinkHeader(header: string | null): Record<string, LinkTarget> {
  const out: Record<string, LinkTarget> = {};
  if (!header) return out;
  for (const part of header.split(/,\s*(?=<)/)) {
    const url = /^\s*<([^>]*)>/.exec(part)?.[1];
    const attributes = Object.fromEntries([...part.matchAll(/;\s*([a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const rel = attributes.rel;
    if (url === undefined || !rel) continue;
    // Only Sentry says whether a page has results; a plain RFC 8288 link to a page means it exists.
    out[rel] = { url, results: attributes.results !== 'false', cursor: attributes.cursor ?? '' };
  }
  return out;
}
