import { UpstreamError } from '../../core/errors.ts';
import type { AuthStrategy } from '../../core/http-client.ts';

/**
 * Works around a core gap (reported to the lead): UpstreamHttpClient calls `auth.headers()` inside the try that
 * treats thrown errors as network failures, so a token endpoint that refuses the client credentials surfaced as
 * a retried "upstream unreachable" (upstream_error). Here a refused token request sends the call without
 * credentials; the upstream answers 401, and `refresh()` (called outside that try) rethrows the refusal as
 * upstream_auth_failed.
 */
export function refusalAfter401(inner: AuthStrategy): AuthStrategy {
  let refusal: UpstreamError | null = null;
  return {
    async headers(signal) {
      try {
        const headers = await inner.headers(signal);
        refusal = null;
        return headers;
      } catch (error) {
        if (!(error instanceof UpstreamError && error.code === 'upstream_auth_failed')) throw error;
        refusal = error;
        return {};
      }
    },
    async refresh(signal) {
      if (refusal) throw refusal;
      return inner.refresh ? inner.refresh(signal) : false;
    },
    secrets: () => inner.secrets(),
  };
}
