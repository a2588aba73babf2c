import { ConnectorError, type ErrorCode } from '@conduit/connectors';
import { SearchQueryError } from '@conduit/search-dsl';
import { describe, expect, it } from 'vitest';
import { STATUS_OF_CODE, toProblem } from './problem.ts';

/** DESIGN.md §3 "Errors": the status of every code a connector or the search compiler raises. */
const EXPECTED: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  invalid_params: 400,
  invalid_filter: 400,
  invalid_cursor: 400,
  unsupported_action: 400,
  unsupported_mode: 400,
  payload_too_large: 413,
  upstream_not_found: 404,
  upstream_error: 502,
  upstream_auth_failed: 502,
  rate_limited: 429,
};

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
