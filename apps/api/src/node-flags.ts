/**
 * Node flags the API process runs with (the launcher and the tests' API process both use these).
 * Downloads stream fast, short-lived buffers; a small young generation keeps RSS flat under that churn
 * (test/e2e/download-streaming.test.ts: ~70 MB growth over 200 MB at V8's default and 72 MB at 4 MB, ~31 MB at
 * 2 MB). 1 MB kept RSS as flat but made scavenges a sixth of a search's CPU under load; 2 MB cut that to a ninth.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];
