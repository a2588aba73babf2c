import type { Problem } from './generated/api.ts';

/** RFC 9457 problem details as the API answers them (docs/api.md). */
export type ProblemDetails = Problem;

/** One problem of a request, with the JSON pointer of the field to fix (e.g. `/params/query/filter/eq/stauts`). */
export type FieldProblem = NonNullable<Problem['errors']>[number];

/** Every failed call throws this: the API's problem details, typed. */
export class ConduitProblem extends Error {
  override name = 'ConduitProblem';
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly type: string;
  readonly detail: string;
  readonly errors: readonly FieldProblem[];
  readonly upstream: ProblemDetails['upstream'];
  /** Seconds, from Retry-After, when the API sent one (429, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(problem: ProblemDetails, retryAfterSeconds?: number) {
    const fields = problem.errors?.length
      ? ` (${problem.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})`
      : '';
    super(`${problem.status} ${problem.code}: ${problem.detail}${fields}`);
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.type = problem.type;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.upstream = problem.upstream;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The problem details as the API sent them (for logs, or to pass on, as the MCP server does). */
  toJSON(): ProblemDetails {
    return {
      type: this.type,
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(this.errors.length ? { errors: [...this.errors] } : {}),
      ...(this.upstream ? { upstream: this.upstream } : {}),
    };
  }
}

export function isConduitProblem(error: unknown): error is ConduitProblem {
  return error instanceof ConduitProblem;
}

/** A problem from a response that failed; bodies that are not problem+json still give status and a code. */
export async function problemFrom(response: Response): Promise<ConduitProblem> {
  const text = await response.text().catch(() => '');
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isProblemBody(body)) return new ConduitProblem(body, retryAfter);
  return new ConduitProblem(
    {
      type: 'about:blank',
      title: response.statusText || 'HTTP error',
      status: response.status,
      detail: text.slice(0, 500) || `HTTP ${response.status}`,
      code: 'http_error',
    },
    retryAfter,
  );
}

function isProblemBody(body: unknown): body is ProblemDetails {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.status === 'number' && typeof b.code === 'string' && typeof b.detail === 'string';
}

/** Retry-After as seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
