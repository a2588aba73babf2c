/**
 * What the filter and aggregation node unions have in common: each is a closed union tagged by `kind`, built
 * through frozen per-kind factories and taken apart by visitors that must handle every kind.
 */
type Tagged = { readonly kind: string };
type Of<T extends Tagged, K extends T['kind']> = Extract<T, { kind: K }>;

/** `create` and `is` for one kind of the union `T`. */
export function kindFactory<T extends Tagged>() {
  return <K extends T['kind']>(kind: K) =>
    Object.freeze({
      create: (props: Omit<Of<T, K>, 'kind'>): Of<T, K> => Object.freeze({ kind, ...props }) as Of<T, K>,
      is: (node: T): node is Of<T, K> => node.kind === kind,
    });
}

/** One handler per kind: adding a kind breaks every visitor until it handles it. */
export type Visitor<T extends Tagged, R> = { readonly [K in T['kind']]: (node: Of<T, K>) => R };

export function visit<T extends Tagged, R>(node: T, visitor: Visitor<T, R>): R {
  const handler = visitor[node.kind as T['kind']] as (n: T) => R;
  return handler(node);
}
