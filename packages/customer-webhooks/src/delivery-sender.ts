import { isIP } from 'node:net';
import { Agent, fetch } from 'undici';
import { guardedLookup, isPublicAddress } from './endpoint-url.ts';

export type SendOutcome = { readonly status: number } | { readonly error: string };

export interface DeliverySender {
  /** POSTs `body` with `headers`; the answer's status, or why there was none (refused, timed out, unreachable). */
  send(url: string, headers: Record<string, string>, body: string): Promise<SendOutcome>;
  close(): Promise<void>;
}

/**
 * The HTTP side of webhook deliveries: its own connection pool; unless `allowPrivate`, every name is resolved
 * through `guardedLookup` and every IP literal checked the same way, so an endpoint cannot reach a non-public address
 * even through DNS. Redirects are not followed (a redirect is an answer, not a 2xx).
 */
export function createDeliverySender(options: { allowPrivate: boolean; timeoutMs: number }): DeliverySender {
  const agent = new Agent(options.allowPrivate ? {} : { connect: { lookup: guardedLookup as never } });
  return {
    async send(url, headers, body) {
      // An IP literal is never looked up, so guardedLookup does not see it: checked here, before any connection.
      const refused = options.allowPrivate ? null : literalNotPublic(url);
      if (refused) return { error: `${refused} is not a public address` };
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        await response.body?.cancel();
        return { status: response.status };
      } catch (error) {
        const cause = (error as { cause?: { message?: string } }).cause;
        const message = error instanceof Error ? error.message : String(error);
        return { error: (cause?.message ? `${message}: ${cause.message}` : message).slice(0, 300) };
      }
    },
    close: () => agent.close(),
  };
}

/** The host of `url` when it is an IP literal that is not public; null otherwise. */
function literalNotPublic(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
  return isIP(host) !== 0 && !isPublicAddress(host) ? host : null;
}
