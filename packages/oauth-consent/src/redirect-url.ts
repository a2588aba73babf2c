/**
 * The caller's redirect_url must be one its API client registered: same origin and same path, exactly (a query
 * string of its own is allowed and kept). A fragment is refused, as RFC 6749 §3.1.2 requires.
 * Returns the reason it is refused, or undefined when it is allowed.
 */
export function redirectUrlProblem(redirectUrl: string, allowed: readonly string[]): string | undefined {
  const url = parseHttpUrl(redirectUrl);
  if (!url) return 'must be an absolute http(s) URL';
  if (redirectUrl.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain credentials';
  const matches = allowed.some((entry) => {
    const candidate = parseHttpUrl(entry);
    return candidate !== undefined && candidate.origin === url.origin && candidate.pathname === url.pathname;
  });
  return matches ? undefined : 'is not one of the redirect URLs registered for this API client';
}

function parseHttpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** redirect_url with the given query parameters added (replacing any of the same name). */
export function redirectWith(redirectUrl: string, params: Readonly<Record<string, string>>): string {
  const url = new URL(redirectUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}
