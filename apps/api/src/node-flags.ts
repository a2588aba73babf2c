/**
 * Node flags the API process runs with (the launcher and the tests' API process both use these).
 * Downloads stream fast, short-lived buffers; a small young generation keeps RSS flat under that churn:
 * measured by test/e2e/download-streaming.test.ts, ~70 MB growth over 200 MB at V8's default, ~35 MB with 1 MB.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];
