/**
 * Reading an Authorization header the way real servers do. RFC 9110 §11.1: "It uses a case-insensitive token to
 * identify the authentication scheme", followed by one or more spaces (§11.4); official clients send `bearer …`
 * (Typeform's @typeform/api-client) as well as `Bearer …`. Every simulator reads credentials through here.
 */
export function credentialsFor(header: string | null | undefined, scheme: 'Bearer' | 'Basic'): string | undefined {
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) +(\S+) *$/.exec(header ?? '');
  if (!match || match[1]?.toLowerCase() !== scheme.toLowerCase()) return undefined;
  return match[2];
}

/** The bearer token of an `Authorization: Bearer <token>` header (any case of the scheme), if there is one. */
export function bearerToken(header: string | null | undefined): string | undefined {
  return credentialsFor(header, 'Bearer');
}

/** The decoded `user:password` of a Basic header (RFC 7617), split at the first colon. */
export function basicCredentials(
  header: string | null | undefined,
): { readonly user: string; readonly password: string } | undefined {
  const encoded = credentialsFor(header, 'Basic');
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
