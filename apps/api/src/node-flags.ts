/**
 * Node flags the API process runs with (the launcher, the deploy files and the tests' API process all use these).
 * - `--max-semi-space-size=16`: a young generation big enough that a search's objects die young. With 2 MB, the
 *   objects of the requests in flight outlived each scavenge and went to the old generation, whose collections
 *   then cost a third of the API's CPU per search at 32 in flight (issue 12: bench A/B side by side, 200k
 *   invoices, CPU per request 0.36 vs 0.50 ms on eq id, 1.95 vs 2.66 on a 100-record page).
 * - `--expose-gc`: downloads ask for a young collection as they stream (download-body.ts). A young generation this
 *   size otherwise holds a download's spent socket buffers until V8's external-memory limit
 *   (test/e2e/download-streaming.test.ts).
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--expose-gc'];
