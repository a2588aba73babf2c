import { z } from 'zod';

/** `meta.total` (OpenAPI and typed clients): matches counted exactly up to 10,000, then `exact: false`. */
export const SearchTotalSchema = z
  .object({ value: z.int().min(0), exact: z.boolean() })
  .meta({ id: 'SearchTotal', description: 'Matching records; exact up to 10,000' });

/** One answer in `meta.aggregations` (see README "Totals and aggregations" for the value forms). */
export const AggResultSchema = z
  .union([
    z
      .array(z.object({ key: z.union([z.string(), z.number(), z.boolean()]), count: z.int().min(0) }))
      .describe('count_by and histogram buckets: [{key, count}]'),
    z
      .object({ value: z.union([z.number(), z.string(), z.null()]) })
      .describe('sum/avg/min/max: numbers as numbers; integers, decimals and dates as strings; null over no values'),
  ])
  .meta({ id: 'SearchAggregationResult' });
