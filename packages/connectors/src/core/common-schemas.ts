import { z } from 'zod';

/** An ISO 8601 date-time with an offset or Z, e.g. 2024-01-01T00:00:00Z. */
export const isoDateTime = z.iso.datetime({ offset: true });

/** The start_date rule of every kind whose specification leaves it open: an ISO 8601 date-time. */
export const startDateReplicationConfig = z.strictObject({ start_date: isoDateTime });

export const noConfig = z.strictObject({});

/** A string id that goes into an upstream URL path (escaped there too). */
export const pathId = z.string().min(1).max(512);

/** An account subdomain (Zendesk): lowercase letters, digits and hyphens; never a host or path. */
export const SUBDOMAIN_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * OAuth 2.0 with refresh (access tokens live about an hour): refresh_token, client_id and client_secret are required;
 * access_token, when given, is used until it expires.
 */
export const refreshingOAuthCredentials = z.strictObject({
  access_token: z.string().min(1).optional(),
  refresh_token: z.string().min(1),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
});
