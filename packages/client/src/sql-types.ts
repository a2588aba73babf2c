import type { SqlResult as ApiSqlResult } from './generated/api.ts';
import type { ConnectorType, SearchableEntity, SearchFieldsOf } from './types.ts';

/**
 * SQL over the copy (docs/sql.md), typed as far as TypeScript can read a query text: the table after `FROM` must
 * be a searchable entity of the kind, and every double-quoted identifier a searchable field of that table
 * (`"billing_address.city"`). Bare column names are checked by the API (400 invalid_sql with "did you mean").
 * A query that is not a literal (`string`) is not checked here.
 */
export type SqlText<K extends ConnectorType, Q extends string> = string extends Q
  ? Q
  : TableOf<Q> extends infer T extends string
    ? string extends T
      ? Q
      : T extends SearchableEntity<K>
        ? QuotedColumnsOk<Q, SearchFieldsOf<K, T>['fields']> extends true
          ? Q
          : `unknown column "${QuotedColumnsOk<Q, SearchFieldsOf<K, T>['fields']> & string}" in ${T}`
        : `unknown table '${T}'`
    : never;

type Space = ' ' | '\n' | '\t' | '\r';
type FirstWord<S extends string> = S extends `${infer W}${Space}${string}` ? W : S extends `${infer W};` ? W : S;
type TableOf<Q extends string> = Q extends `${string}${Space}${'FROM' | 'from' | 'From'}${Space}${infer Rest}`
  ? FirstWord<Rest>
  : '(no FROM)';

/** `true`, or the first double-quoted identifier that is not one of `Fields`. */
type QuotedColumnsOk<Q extends string, Fields extends string> = Q extends `${string}"${infer C}"${infer Rest}`
  ? C extends Fields
    ? QuotedColumnsOk<Rest, Fields>
    : C
  : true;

/** A column of an SQL answer. */
export type SqlColumn = ApiSqlResult['meta']['columns'][number];

/** One page of an SQL answer: rows keyed by column name (the API's schema, with the rows typed). */
export type SqlResult<Row = Record<string, unknown>> = Omit<ApiSqlResult, 'data'> & { data: Row[] };

/** The searchable fields (SQL columns) of an entity. */
export type SqlColumnOf<K extends ConnectorType, E extends SearchableEntity<K>> = SearchFieldsOf<K, E>['fields'];
