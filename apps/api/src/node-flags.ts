/**
 * Node flags the API process runs with (the launcher, the deploy files and the tests' API process all use these).
 * - `--max-semi-space-size=16`: a young generation big enough for the requests in flight. With 2 MB, the API spent
 *   32-70% more CPU per search at 32 in flight, and no consistent difference at 1 (two API processes
 *   side by side in one bench run, 200k invoices, 13 query kinds; 0.50 vs 0.36 ms on eq id, 2.66 vs 1.95 on a
 *   100-record page).
 *   Where it went, by `--trace-gc` (eq id and in 10 ids at 32 in flight, one run each): 656 scavenges pausing
 *   1,584 ms in all at 2 MB, against 97 pausing 411 ms at 16 MB; each scavenge copies the objects of every request
 *   still in flight, so how often it runs is what costs. Full collections were few either way (9 and 5).
 * - `--expose-gc`: downloads ask for a young collection as they stream (download-body.ts). A young generation this
 *   size otherwise holds a download's spent socket buffers until V8's external-memory limit
 *   (test/e2e/download-streaming.test.ts).
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--expose-gc'];
