import { ConnectorError, type ErrorCode } from '@conduit/connectors';
import { SearchQueryError } from '@conduit/search-dsl';
import { describe, expect, it } from 'vitest';
import { STATUS_OF_CODE, toProblem } from './problem.ts';

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
});
