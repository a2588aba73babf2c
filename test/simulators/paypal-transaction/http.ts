import type { Context } from 'hono';

export const DAY = 86_400_000;
const WITH_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** PayPal error bodies (https://developer.paypal.com/api/rest/responses/). */
export function failure(name: string, message: string, details: { field: string; issue: string }[] = []) {
  return { name, message, debug_id: 'f00dfeed0001', details, links: [] };
}
export const invalid = (c: Context, field: string, issue: string) =>
  c.json(
    failure('INVALID_REQUEST', 'Request is not well-formed, syntactically incorrect, or violates schema.', [
      { field, issue },
    ]),
    400,
  );

/** Instants of PayPal's date forms (`...Z`, `+01:00`, `-0700`); NaN otherwise. */
export function parse(value: string | null | undefined): number {
  if (!value || !WITH_SECONDS.test(value)) return Number.NaN;
  return Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

type Paging =
  | { readonly error: Response }
  | { readonly error?: undefined; readonly size: number; readonly page: number };

export function pageParams(c: Context, defaultSize: number, maxSize: number): Paging {
  const q = new URL(c.req.url).searchParams;
  const size = Number(q.get('page_size') ?? defaultSize);
  const page = Number(q.get('page') ?? 1);
  if (!Number.isInteger(size) || size < 1 || size > maxSize)
    return { error: invalid(c, 'page_size', 'INVALID_PARAMETER_VALUE') };
  if (!Number.isInteger(page) || page < 1) return { error: invalid(c, 'page', 'INVALID_PARAMETER_VALUE') };
  return { size, page };
}
