/**
 * Value types of search filters (docs/search.md). The server converts and checks them again; these only catch, at
 * compile time, what it would reject anyway.
 */

/** An instant: `2024-02-10T00:01:56Z`, `2024-02-10T01:01:56+01:00`, `2024-02-10T00:01:56+0000` or a date. */
export type DateTimeValue = `${number}-${number}-${number}${string}`;

/** A 64-bit integer: a number, or its decimal string when it does not fit a double exactly. */
export type IntegerValue = number | `${bigint}`;

/** An exact decimal (money): its string, `"12.50"`, or a number. */
export type DecimalValue = number | `${number}`;

/** A value inside an object whose fields the catalog does not declare: compared as a string. */
export type FlatValue = string | number | boolean;
