import { TokenCache } from './auth.ts';
import { ACTIONS, type ActionName, entityActions, entityOf, type LiveActionName } from './catalog.ts';
import type {
  ConnectorContext,
  ConnectorDefinition,
  ConnectorSettings,
  DownloadResult,
  EntityOperations,
  ReadPage,
  ReadRequest,
} from './define-connector.ts';
import { didYouMean } from './did-you-mean.ts';
import { ConnectorError } from './errors.ts';
import { UpstreamHttpClient } from './http-client.ts';
import { declaredOperations } from './listing.ts';
import { fillUrlOrThrow } from './url-template.ts';
import { parseOrThrow } from './validate.ts';

export interface ExecuteRequest {
  readonly entity: string;
  readonly action: string;
  readonly params?: Record<string, unknown> | undefined;
  readonly signal?: AbortSignal | undefined;
}

export type ExecuteResult =
  | { readonly type: 'json'; readonly body: { data: unknown; meta?: Record<string, unknown> } }
  | { readonly type: 'stream'; readonly download: DownloadResult };

/** A connector instance bound to one set of credentials (direct mode, and the hosted API's live actions). */
export interface Connector {
  readonly connectorType: string;
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /** Replication read of one entity (used by the worker). */
  read(entity: string, request: ReadRequest, signal?: AbortSignal): AsyncIterable<ReadPage>;
  /**
   * The params a write should carry so that the vendor itself applies it once however often it is sent (Drive:
   * a pre-generated file id); `undefined` when the kind cannot make this write safe to repeat. Invalid params are
   * refused here as execute would refuse them.
   */
  prepareWrite(request: ExecuteRequest): Promise<Record<string, unknown> | undefined>;
}

/**
 * Validates credentials and config against the kind's catalog and returns a connector that calls the upstream.
 * `search` is answered with an error: it exists only in hosted mode, over the synchronized copy.
 */
export function connectWith<Credentials, Config>(
  definition: ConnectorDefinition<Credentials, Config>,
  rawCredentials: unknown,
  rawConfig: unknown = {},
  settings: ConnectorSettings = {},
): Connector {
  const { catalog } = definition;
  const credentials = parseOrThrow(
    catalog.credentials,
    rawCredentials,
    '/credentials',
    'invalid_request',
    'invalid credentials',
  );
  const config = parseOrThrow(catalog.config, rawConfig ?? {}, '/config', 'invalid_request', 'invalid config');
  const tokenCache = settings.tokenCache ?? new TokenCache();
  const baseUrl = fillUrlOrThrow(settings.baseUrl ?? definition.defaultBaseUrl, config);
  const http = new UpstreamHttpClient({
    baseUrl,
    auth: definition.auth({ credentials, config, settings, tokenCache }),
    defaultHeaders: definition.defaultHeaders?.({ credentials, config }) ?? {},
    ...(definition.classify ? { classify: definition.classify } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.onUpstreamResponse ? { onResponse: settings.onUpstreamResponse } : {}),
    ...(settings.budget ? { budget: settings.budget } : {}),
  });
  const operations = new Map<string, EntityOperations<ConnectorContext<Credentials, Config>>>();
  for (const entity of Object.values(catalog.entities)) {
    const own = Object.hasOwn(definition.entities, entity.name) ? definition.entities[entity.name] : undefined;
    operations.set(entity.name, { ...declaredOperations(entity, own?.hooks), ...own });
  }
  const context = (signal?: AbortSignal): ConnectorContext<Credentials, Config> => ({
    http,
    credentials,
    config,
    signal,
  });

  return {
    connectorType: catalog.connectorType,

    async execute(request) {
      const entity = entityOf(catalog, request.entity);
      if (!entity) {
        const names = Object.keys(catalog.entities);
        throw new ConnectorError('unsupported_action', `unknown entity '${request.entity}'`, [
          { path: '/entity', message: `supported entities: ${names.join(', ')}.${didYouMean(request.entity, names)}` },
        ]);
      }
      const supported = entityActions(entity);
      if (!supported.includes(request.action as ActionName)) {
        const known = (ACTIONS as readonly string[]).includes(request.action);
        throw new ConnectorError('unsupported_action', `${request.entity} does not support '${request.action}'`, [
          {
            path: '/action',
            message: `supported actions of ${request.entity}: ${supported.join(', ')}.${known ? '' : didYouMean(request.action, supported)}`,
          },
        ]);
      }
      if (request.action === 'search') {
        throw new ConnectorError(
          'unsupported_mode',
          'search exists only in hosted mode: it queries the synchronized copy',
          [{ path: '/action', message: 'use the hosted execute endpoint for search' }],
        );
      }
      const action = request.action as LiveActionName;
      const schema = entity.actions[action];
      const operation = operations.get(request.entity)?.[action];
      if (!schema || !operation)
        throw new Error(`${catalog.connectorType}.${request.entity}.${action} has no implementation`);
      const params = parseOrThrow(schema, request.params ?? {}, '/params', 'invalid_params', 'invalid params');
      const ctx = context(request.signal);
      switch (action) {
        case 'list': {
          const page = await (operation as NonNullable<EntityOperations['list']>)(ctx, params);
          return { type: 'json', body: { data: page.records, meta: page.meta } };
        }
        case 'download': {
          const download = await (operation as NonNullable<EntityOperations['download']>)(ctx, params);
          return { type: 'stream', download };
        }
        default: {
          const data = await (operation as (c: typeof ctx, p: typeof params) => Promise<unknown>)(ctx, params);
          return { type: 'json', body: { data } };
        }
      }
    },

    async prepareWrite(request) {
      const prepare = operations.get(request.entity)?.prepare;
      const schema = entityOf(catalog, request.entity)?.actions[request.action as LiveActionName];
      if (!prepare || !schema) return undefined;
      const params = parseOrThrow(schema, request.params ?? {}, '/params', 'invalid_params', 'invalid params');
      return prepare(context(request.signal), request.action, params);
    },

    read(entityName, request, signal) {
      const read = operations.get(entityName)?.read;
      if (!read) throw new Error(`${catalog.connectorType}.${entityName} cannot be replicated: no read()`);
      return read(context(signal), request);
    },
  };
}
