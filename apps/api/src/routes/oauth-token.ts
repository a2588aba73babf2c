import { verifyClientSecret } from '@conduit/config';
import { parseOrThrow } from '@conduit/connectors';
import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { defineRoutes, jsonResponse, problems } from '../openapi/route-kit.ts';
import { TokenResponseSchema } from '../openapi/schemas.ts';
import { ApiError } from '../problem.ts';
import { parseJsonValue } from '../request-body.ts';

export const TokenRequest = z.object({
  grant_type: z.literal('client_credentials'),
  client_id: z.string().min(1).max(200),
  client_secret: z.string().min(1).max(500),
});

const EXAMPLE = {
  grant_type: 'client_credentials',
  client_id: 'demo-client',
  client_secret: 'demo-secret-change-me',
};

export const tokenRoute = createRoute({
  tags: ['Authentication'],
  method: 'post',
  path: '/',
  summary: 'Exchange client credentials for a bearer token',
  security: [],
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: TokenRequest,
          examples: { example0: { summary: 'client credentials', value: EXAMPLE } },
        },
        'application/x-www-form-urlencoded': { schema: TokenRequest },
      },
    },
  },
  responses: { 200: jsonResponse(TokenResponseSchema, 'a bearer token'), ...problems(400, 401) },
});

/** POST /api/v1/oauth/token: the client-credentials grant, form-encoded or JSON. */
export const oauthTokenRoutes = defineRoutes({ token: tokenRoute }, (deps: Pick<ApiDeps, 'clients' | 'tokens'>) => ({
  token: async (c) => {
    const type = c.req.header('content-type') ?? '';
    let raw: unknown;
    try {
      raw = type.includes('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(await c.req.text()))
        : parseJsonValue(await c.req.text());
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(400, 'invalid_request', 'the body must be JSON or form-encoded', {
        errors: [{ path: '', message: 'unreadable body' }],
        cause: error,
      });
    }
    const request = parseOrThrow(TokenRequest, raw, '', 'invalid_request', 'invalid token request');
    const client = await deps.clients.find(request.client_id);
    // The same answer for an unknown client and a wrong secret: nothing to learn by probing.
    if (!client || !(await verifyClientSecret(request.client_secret, client.secret_hash))) {
      throw new ApiError(401, 'unauthorized', 'invalid client credentials');
    }
    const accessToken = await deps.tokens.issue({
      clientId: client.client_id,
      organizationIds: client.organization_ids,
      generation: client.token_generation,
    });
    c.header('cache-control', 'no-store');
    return c.json({ access_token: accessToken, token_type: 'Bearer', expires_in: deps.tokens.ttlSeconds });
  },
}));
