/** Google's error body (https://developers.google.com/workspace/drive/api/guides/handle-errors). */
export function googleError(code: number, reason: string, message: string, domain = 'global') {
  const status: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  return {
    error: { code, message, errors: [{ domain, reason, message }], ...(status[code] ? { status: status[code] } : {}) },
  };
}

/** Bodies for injected faults: Drive's documented rate-limit and backend errors. */
export function faultBody(status: number) {
  if (status === 403) return googleError(403, 'userRateLimitExceeded', 'User rate limit exceeded.', 'usageLimits');
  if (status === 429) return googleError(429, 'rateLimitExceeded', 'Rate Limit Exceeded', 'usageLimits');
  return googleError(status, 'backendError', 'Backend Error');
}
