import type { AccessTokens } from '@conduit/trusted-calls';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';
import type { ClientAccessCache } from '../services/client-access.ts';

/**
 * Bearer tokens from /api/v1/oauth/token. A client with several organizations must say which one it acts for
 * (X-Organization-Id); naming one it does not belong to is a 403. A token dies with its client: one issued before
 * the client's secret was rotated or its tokens revoked, or whose client was deleted, is a 401; an organization
 * no longer granted is a 403 (checked against the client's current state, see ClientAccessCache).
 */
export function authenticate(tokens: AccessTokens, clientAccess: ClientAccessCache): MiddlewareHandler<ApiEnv> {
  return async function authenticateMiddleware(c, next) {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) throw new ApiError(401, 'unauthorized', 'a bearer token is required');
    const claims = await tokens.verify(match[1]);
    if (claims === 'expired') throw new ApiError(401, 'unauthorized', 'the access token has expired');
    if (claims === 'invalid') throw new ApiError(401, 'unauthorized', 'the access token is not valid');
    const access = await clientAccess.get(claims.clientId, claims.generation);
    if (access?.token_generation !== claims.generation) {
      throw new ApiError(401, 'unauthorized', 'the access token has been revoked');
    }
    const requested = c.req.header('x-organization-id');
    let organizationId: string;
    if (requested !== undefined) {
      if (!claims.organizationIds.includes(requested) || !access.organization_ids.includes(requested)) {
        throw new ApiError(403, 'forbidden', 'this client may not act for that organization', {
          errors: [{ path: '/headers/x-organization-id', message: 'not one of the client organizations' }],
        });
      }
      organizationId = requested;
    } else if (claims.organizationIds.length === 1) {
      organizationId = claims.organizationIds[0]!;
    } else {
      throw new ApiError(
        400,
        'invalid_request',
        'this client belongs to several organizations: send X-Organization-Id',
        {
          errors: [
            { path: '/headers/x-organization-id', message: 'is required for a client with several organizations' },
          ],
        },
      );
    }
    if (!access.organization_ids.includes(organizationId)) {
      throw new ApiError(403, 'forbidden', 'this client may no longer act for that organization');
    }
    c.set('auth', { clientId: claims.clientId, organizationId });
    c.set('logger', c.get('logger').child({ client_id: claims.clientId, organization_id: organizationId }));
    return next();
  };
}
