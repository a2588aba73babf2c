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
    // Recursive getters carry their types (zod's documented pattern): inference alone gives up once another
    // package augments zod's types (@hono/zod-openapi adds .openapi()).
    get any(): z.ZodOptional<z.ZodRecord<z.ZodString, typeof SearchFilterSchema>> {
      return values(SearchFilterSchema);
    },
    get not(): z.ZodOptional<typeof SearchFilterSchema> {
      return SearchFilterSchema.optional();
    },
    get and(): z.ZodOptional<z.ZodArray<typeof SearchFilterSchema>> {
      return z.array(SearchFilterSchema).min(1, 'and takes a non-empty list').optional();
    },
    get or(): z.ZodOptional<z.ZodArray<typeof SearchFilterSchema>> {
      return z.array(SearchFilterSchema).min(1, 'or takes a non-empty list').optional();
    },
  })
  .meta({ id: 'SearchFilter', description: 'A search condition (docs/search.md).' });

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

/**
 * Search by meaning (docs/search.md): the records matching `filter`, ranked by how close their embedded fields are
 * to `text` in meaning and in words together; `sort` cannot go with it.
 */
export const SemanticQuerySchema = z
  .strictObject({
    text: z
      .string()
      .trim()
      .min(1, 'text is what the records should mean, in words')
      .max(SEARCH_LIMITS.maxSemanticText, `text has at most ${SEARCH_LIMITS.maxSemanticText} characters`),
    fields: z.array(fieldPath).min(1).max(16).optional(),
    min_score: z.number().min(0).max(1).optional(),
  })
  .meta({ id: 'SemanticQuery', description: 'Rank the matching records by meaning (docs/search.md).' });

export type SemanticQuery = z.infer<typeof SemanticQuerySchema>;

export const SearchQuerySchema = z.strictObject({
  filter: SearchFilterSchema.optional(),
  sort: SearchSortSchema.optional(),
  semantic: SemanticQuerySchema.optional(),
});

export const HISTOGRAM_INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type HistogramInterval = (typeof HISTOGRAM_INTERVALS)[number];
export const METRICS = ['sum', 'avg', 'min', 'max'] as const;
export type Metric = (typeof METRICS)[number];

const metric = <K extends Metric>(key: K) =>
  z.strictObject({ [key]: fieldPath } as { [P in K]: typeof fieldPath }).meta({
    description: `The ${key} of a number, decimal${key === 'sum' ? '' : ' or date-time'} field over the matching records: \`{"value"}\``,
  });

/**
 * One named aggregation over the records that match the filter (docs/search.md, dashboards). Exactly one kind:
 * `count_by` (top values with counts), `sum`/`avg`/`min`/`max` (one value), `histogram` (UTC buckets of a date).
 */
export const SearchAggregationSchema = z
  .union([
    z
      .strictObject({
        count_by: fieldPath,
        size: z
          .int(`size is an integer from 1 to ${SEARCH_LIMITS.maxCountBySize}`)
          .min(1, `size is an integer from 1 to ${SEARCH_LIMITS.maxCountBySize}`)
          .max(SEARCH_LIMITS.maxCountBySize, `size is an integer from 1 to ${SEARCH_LIMITS.maxCountBySize}`)
          .optional()
          .meta({ description: `Buckets to return (default ${SEARCH_LIMITS.defaultCountBySize})` }),
      })
      .meta({ description: 'The most frequent values of a field: `[{"key", "count"}]`, most first, then by key' }),
    metric('sum'),
    metric('avg'),
    metric('min'),
    metric('max'),
    z.strictObject({ histogram: fieldPath, interval: z.enum(HISTOGRAM_INTERVALS) }).meta({
      description: 'Records per UTC hour/day/week (Monday)/month of a date-time field, empty buckets included',
    }),
  ])
  .meta({ id: 'SearchAggregation' });

export type SearchAggregation = z.infer<typeof SearchAggregationSchema>;

export const AGGREGATION_KINDS = ['count_by', ...METRICS, 'histogram'] as const;

/** `params.aggregate`: aggregations by the name their result gets in `meta.aggregations`. */
export const SearchAggregateSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'aggregation names have 1-64 letters, digits, _ or -'),
    SearchAggregationSchema,
  )
  .refine((a) => Object.keys(a).length <= SEARCH_LIMITS.maxAggregations, {
    message: `at most ${SEARCH_LIMITS.maxAggregations} aggregations`,
  });

/** The `params` of the `search` action. Use it for OpenAPI; use `parseSearchParams` to read a request. */
export const SearchParamsSchema = z.strictObject({
  query: SearchQuerySchema,
  aggregate: SearchAggregateSchema.optional(),
  limit: z
    .int('limit must be an integer')
    .min(SEARCH_LIMITS.minLimit)
    .max(SEARCH_LIMITS.maxLimit)
    .default(SEARCH_LIMITS.defaultLimit),
  cursor: z.string().min(1).optional(),
  fields: z.array(fieldPath).min(1).optional(),
});

export type SearchParams = z.infer<typeof SearchParamsSchema>;
