import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import type { Handler, Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';
import { ProblemSchema } from './schemas.ts';

/**
 * Routes with their handlers: each route's `createRoute` definition (what the OpenAPI document shows) and a factory
 * that builds its handler from the API's dependencies once, when the app is built. The key names tie each handler to
 * its route, so a route without a handler does not compile. Handlers validate their JSON bodies with the route's own
 * body schema through readJson (problem+json with a JSON pointer per issue, as everywhere), not with
 * @hono/zod-openapi's validator, so errors, empty bodies and content types behave as they always have.
 *
 * @example
 * export const healthRoutes = defineRoutes({ healthz: healthzRoute }, () => ({
 *   healthz: (c) => c.json({ status: 'ok' }),
 * }));
 */
export interface RouteSet<D = ApiDeps> {
  /** The definitions, in the order they are mounted and documented. */
  readonly routes: readonly RouteConfig[];
  /** One handler per route, in the same order. */
  readonly handlers: (deps: D) => readonly Handler<ApiEnv>[];
  /** Routes whose path answers 405 `method_not_allowed` to every other method. */
  readonly methodOnly: readonly RouteConfig[];
}

export function defineRoutes<const R extends Record<string, RouteConfig>, D>(
  routes: R,
  handlers: (deps: D) => { readonly [K in keyof R]: Handler<ApiEnv> },
  options: { readonly methodOnly?: readonly (keyof R)[] } = {},
): RouteSet<D> {
  const keys = Object.keys(routes) as (keyof R)[];
  return {
    routes: keys.map((key) => routes[key]),
    handlers: (deps) => {
      const built = handlers(deps);
      return keys.map((key) => built[key]);
    },
    methodOnly: (options.methodOnly ?? []).map((key) => routes[key]),
  };
}

/** Mounts a set's handlers on `app` at their definitions' paths (`{id}` becomes hono's `:id`). */
export function mountRoutes<D>(app: Hono<ApiEnv>, set: RouteSet<D>, deps: D): void {
  const handlers = set.handlers(deps);
  set.routes.forEach((route, i) => {
    app.on(route.method.toUpperCase(), honoPath(route.path), handlers[i] as Handler<ApiEnv>);
  });
  for (const route of set.methodOnly) {
    const message = `${route.path.split('/').at(-1)} takes ${route.method.toUpperCase()}`;
    app.all(honoPath(route.path), () => {
      throw new ApiError(405, 'method_not_allowed', message);
    });
  }
}

function honoPath(path: string): string {
  return path.replaceAll(/\{([^}]+)\}/g, ':$1');
}

/** The JSON body schema a route declares (what readJson validates against). */
export function bodySchema<S extends z.ZodType>(route: {
  request: { body: { content: { 'application/json': { schema: S } } } };
}): S {
  return route.request.body.content['application/json'].schema;
}

/** `{ content: application/json schema, examples }` for a request body. */
export function jsonBody<S extends z.ZodType>(
  schema: S,
  examples: readonly { summary: string; value: unknown }[] = [],
  description?: string,
) {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: {
      'application/json': {
        schema,
        ...(examples.length > 0 ? { examples: Object.fromEntries(examples.map((e, i) => [`example${i}`, e])) } : {}),
      },
    },
  } as const;
}

export function jsonResponse<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { 'application/json': { schema } } } as const;
}

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'the request must be fixed: `errors` lists each problem with its JSON pointer',
  401: 'missing, expired or forged bearer token',
  403: 'organization not allowed for this client; or one more than a quota of the organization allows (quota_exceeded)',
  404: 'no such connector (or one of another organization), or no such upstream resource',
  405: 'wrong method',
  409: 'a connector with this identity exists; on execute, a call with the same Idempotency-Key is still running (Retry-After)',
  410: 'the cursor is older than the retention (cursor_expired): start again from a search',
  413: 'the body is over the limit',
  422: 'the Idempotency-Key was used with a different request',
  429: 'our rate limit, the upstream’s, or the organization’s requests of the day (quota_exceeded); see Retry-After',
  502: 'the upstream failed or rejected the stored credentials',
  503: 'the index cannot answer (live actions keep working)',
};

/** RFC 9457 problem responses for the given statuses. */
export function problems(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: PROBLEM_DESCRIPTIONS[status] ?? 'problem',
        content: { 'application/problem+json': { schema: ProblemSchema } },
      },
    ]),
  );
}

/** Problems the bearer check and the rate limit answer on every authenticated route. */
const AUTHENTICATED_PROBLEMS = [401, 403, 429] as const;
/** What most routes answer themselves: they take a body, a query or an id (400) and look something up (404). */
const ROUTE_PROBLEMS = [400, 404] as const;

const BEARER = [{ bearer: [] }];

type AuthenticatedRouteConfig = Omit<RouteConfig, 'security'> & {
  /** The problems the route answers itself, beyond AUTHENTICATED_PROBLEMS; ROUTE_PROBLEMS unless stated. */
  problems?: readonly number[];
};

/**
 * A route behind the bearer token: what every such route declares (the bearer scheme and the problems it can answer)
 * is stated here once, so a route states only what is its own.
 */
export function authenticatedRoute<const R extends AuthenticatedRouteConfig>(config: R) {
  const { problems: own = ROUTE_PROBLEMS, ...route } = config;
  return createRoute({
    ...route,
    security: BEARER,
    responses: { ...route.responses, ...problems(...AUTHENTICATED_PROBLEMS, ...own) },
  });
}

type Response = ReturnType<typeof jsonResponse>;

/**
 * The routes of a resource: its list at `/` and, at its id's path, its read, change and removal. What such routes
 * declare alike (method, path, the id parameter, the list's `{ data }` envelope, the 204 of a removal) is stated
 * here once, so each route states only its summary and its answers.
 */
export function resourceRoutes<P extends z.ZodObject>(resource: { tags: string[]; idPath: `/{${string}}`; params: P }) {
  const { tags, idPath: path, params } = resource;
  return {
    /** GET `/`: `{ data: [...] }`. It looks nothing up and takes nothing, so it answers no 400 or 404. */
    list: (summary: string, item: z.ZodType, description: string) =>
      authenticatedRoute({
        tags,
        method: 'get',
        path: '/',
        summary,
        responses: { 200: jsonResponse(z.object({ data: z.array(item) }), description) },
        problems: [],
      }),
    get: (summary: string, response: Response) =>
      authenticatedRoute({ tags, method: 'get', path, summary, request: { params }, responses: { 200: response } }),
    /** PATCH with a JSON body; `problems` beyond ROUTE_PROBLEMS when the change reaches further (an upstream). */
    update: <S extends z.ZodType>(
      summary: string,
      body: { schema: S; example: { summary: string; value: unknown } },
      response: Response,
      problems: readonly number[] = ROUTE_PROBLEMS,
    ) =>
      authenticatedRoute({
        tags,
        method: 'patch',
        path,
        summary,
        request: { params, body: jsonBody(body.schema, [body.example]) },
        responses: { 200: response },
        problems,
      }),
    delete: (summary: string) =>
      authenticatedRoute({
        tags,
        method: 'delete',
        path,
        summary,
        request: { params },
        responses: { 204: { description: 'deleted' } },
      }),
  };
}
