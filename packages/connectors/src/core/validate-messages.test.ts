import { describe, expect, it } from 'vitest';
import { zendeskTalkCatalog } from '../kinds/zendesk-talk/catalog.ts';
import { ConnectorError } from './errors.ts';
import { parseOrThrow } from './validate.ts';

const getPhoneNumber = zendeskTalkCatalog.entities.phone_numbers!.actions.get!;

function problems(params: unknown) {
  try {
    parseOrThrow(getPhoneNumber, params, '/params', 'invalid_params', 'invalid params');
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectorError);
    return (error as ConnectorError).errors;
  }
  throw new Error('expected a ConnectorError');
}

describe('parameter problems', () => {
  it('says which type a parameter of the wrong type wants, instead of "is required"', () => {
    expect(problems({ phone_number_id: 'abc' })).toEqual([
      { path: '/params/phone_number_id', message: 'expected a number, got a string' },
    ]);
    expect(problems({ phone_number_id: null })).toEqual([
      { path: '/params/phone_number_id', message: 'expected a number, got null' },
    ]);
  });

  it('still says "is required" when the parameter is missing', () => {
    expect(problems({})).toEqual([{ path: '/params/phone_number_id', message: 'is required' }]);
  });
});
