import { readFileSync } from 'node:fs';
import { ConnectorError, type ErrorCode } from '@conduit/connectors';
import { SearchQueryError } from '@conduit/search-dsl';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { API_OWN_CODES, ApiError, type ApiErrorCode, STATUS_OF_CODE, toProblem } from './problem.ts';

/** docs/api.md "Errors": the status of every code a connector or the search compiler raises, by status. */
const CODES_BY_STATUS: Readonly<Record<number, readonly ErrorCode[]>> = {
  400: [
    'invalid_request',
    'invalid_params',
    'invalid_filter',
    'invalid_cursor',
    'query_too_costly',
    'unsupported_action',
    'unsupported_mode',
  ],
  404: ['upstream_not_found'],
  413: ['payload_too_large'],
  429: ['rate_limited'],
  502: ['upstream_error', 'upstream_auth_failed'],
};
const EXPECTED: Readonly<Record<ErrorCode, number>> = Object.fromEntries(
  Object.entries(CODES_BY_STATUS).flatMap(([status, codes]) => codes.map((code) => [code, Number(status)])),
) as Record<ErrorCode, number>;

describe('problem+json mapping', () => {
  it('maps every error code to its status (the map is a Record over ErrorCode, so none can be missing)', () => {
    expect(STATUS_OF_CODE).toEqual(EXPECTED);
    for (const [code, status] of Object.entries(EXPECTED)) {
      expect(toProblem(new ConnectorError(code as ErrorCode, 'x')).problem.status, code).toBe(status);
    }
  });

  it('answers search problems with pointers into the request body (/params/...)', () => {
    const { problem } = toProblem(
      new SearchQueryError('invalid_filter', [{ path: '/query/filter/eq/stauts', message: "unknown field 'stauts'" }]),
    );
    expect(problem).toMatchObject({
      status: 400,
      code: 'invalid_filter',
      errors: [{ path: '/params/query/filter/eq/stauts', message: "unknown field 'stauts'" }],
    });
    expect(problem.detail).toContain('/params/query/filter/eq/stauts');
    const limit = toProblem(new SearchQueryError('invalid_params', [{ path: '/limit', message: 'too big' }])).problem;
    expect(limit).toMatchObject({ status: 400, code: 'invalid_params', errors: [{ path: '/params/limit' }] });
  });

  it('keeps the cause of an ApiError for the logs, and never sends it', () => {
    const cause = new Error('secret engine detail');
    const error = new ApiError(503, 'search_unavailable', 'the search index did not answer', { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(toProblem(error))).not.toContain('secret engine detail');
    expect(new ApiError(404, 'not_found', 'nothing').cause).toBeUndefined();
  });
});

/** Every code the API answers, beyond its own: the connectors', the query languages' and the mapping's. */
const OTHER_CODES = [
  'invalid_request',
  'invalid_params',
  'invalid_filter',
  'invalid_cursor',
  'query_too_costly',
  'unsupported_action',
  'unsupported_mode',
  'upstream_error',
  'upstream_auth_failed',
  'upstream_not_found',
  'rate_limited',
  'payload_too_large',
  'invalid_sql',
  'upstream_rejected',
  'internal_error',
] as const;

describe('ApiErrorCode', () => {
  it('is exactly the API’s own codes and the others', () => {
    expectTypeOf<ApiErrorCode>().toEqualTypeOf<(typeof API_OWN_CODES)[number] | (typeof OTHER_CODES)[number]>();
  });

  it('has each code in the error table of docs/api.md', () => {
    const doc = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('## Errors'), doc.indexOf('## Limits'));
    const documented = new Set(
      table
        .split('\n')
        .filter((line) => /^\| \d{3} \|/.test(line))
        .flatMap((line) => [...(line.split('|')[2] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1])),
    );
    expect([...API_OWN_CODES, ...OTHER_CODES].filter((code) => !documented.has(code))).toEqual([]);
    expect([...documented].filter((code) => !([...API_OWN_CODES, ...OTHER_CODES] as string[]).includes(code!))).toEqual(
      [],
    );
  });
});
