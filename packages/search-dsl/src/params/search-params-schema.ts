import { z } from 'zod';
import { SEARCH_LIMITS } from '../limits.ts';

const fieldPath = z.string().min(1, 'a field path is required');
const scalar = z.union([z.string(), z.number(), z.boolean()], { error: 'expected a string, number or boolean' });
const scalarOrNull = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: 'expected a string, number, boolean or null',
});

const values = <T extends z.ZodType>(value: T) => z.record(fieldPath, value).optional();

/**
 * One condition: `{"<op>": {"<field path>": <value>}}`. Several operators in one object, and several fields in
 * one operator, are ANDed. Field names and value types are checked later against the entity's fields.
 */
export const SearchFilterSchema = z
  .strictObject({
    eq: values(scalarOrNull),
    neq: values(scalarOrNull),
    gt: values(scalar),
    gte: values(scalar),
    lt: values(scalar),
    lte: values(scalar),
    in: values(
      z
        .array(scalar)
        .min(1, 'in takes a non-empty list')
        .max(SEARCH_LIMITS.maxInValues, `in takes at most ${SEARCH_LIMITS.maxInValues} values`),
    ),
    like: values(z.string()),
    fuzzy: values(z.string()),
    keyword: values(z.string()),
    contains: values(scalar),
    get any() {
      return values(SearchFilterSchema);
    },
    get not() {
      return SearchFilterSchema.optional();
    },
    get and() {
      return z.array(SearchFilterSchema).min(1, 'and takes a non-empty list').optional();
    },
    get or() {
      return z.array(SearchFilterSchema).min(1, 'or takes a non-empty list').optional();
    },
  })
  .meta({ id: 'SearchFilter', description: 'A search condition (DESIGN.md §4).' });

export type SearchFilter = z.infer<typeof SearchFilterSchema>;
export type Operator = keyof SearchFilter;
export const OPERATORS = Object.freeze(Object.keys(SearchFilterSchema.shape) as Operator[]);

export const SortDirectionSchema = z.enum(['asc', 'desc']);
export type SortDirection = z.infer<typeof SortDirectionSchema>;

export const SearchSortSchema = z
  .array(
    z
      .record(fieldPath, SortDirectionSchema)
      .refine((entry) => Object.keys(entry).length === 1, 'each sort entry names exactly one field'),
  )
  .max(SEARCH_LIMITS.maxSortKeys, `at most ${SEARCH_LIMITS.maxSortKeys} sort keys`);

export const SearchQuerySchema = z.strictObject({
  filter: SearchFilterSchema.optional(),
  sort: SearchSortSchema.optional(),
});

/** The `params` of the `search` action. Use it for OpenAPI; use `parseSearchParams` to read a request. */
export const SearchParamsSchema = z.strictObject({
  query: SearchQuerySchema,
  limit: z
    .int('limit must be an integer')
    .min(SEARCH_LIMITS.minLimit)
    .max(SEARCH_LIMITS.maxLimit)
    .default(SEARCH_LIMITS.defaultLimit),
  cursor: z.string().min(1).optional(),
  fields: z.array(fieldPath).min(1).optional(),
});

export type SearchParams = z.infer<typeof SearchParamsSchema>;
export type SearchParamsInput = z.input<typeof SearchParamsSchema>;
