/**
 * `npm run bench:postgres` (and a section of `npm run bench`): the PostgreSQL store beside the
 * JSON-file store, measured by the same code in the same run, at issue 27's targets. It starts its
 * own throw-away PostgreSQL (Debian's, test/helpers/postgres-server.ts: `initdb` in a folder under
 * /tmp, 127.0.0.1, a free port, fsync on, shared_buffers 128MB), removed at the end, also on a
 * failure or Ctrl-C. Without PostgreSQL's binaries it says so in one line and exits 0.
 *
 * 1. The stores: BENCH_PG_CONVERSATIONS (10,000) conversations × 20 messages of 250–350 characters
 *    (windows of the developer chats, or of this repository's docs without them: bench/texts.ts,
 *    bench/text-store.ts), written through each repository's transactions, 100 conversations a
 *    transaction: the JSON-file store without fsync while it is built, PostgreSQL durably, four
 *    transactions at a time, then `VACUUM (ANALYZE)` (what autovacuum does soon after a bulk load;
 *    timed apart). Each fill time is printed.
 * 2. Reads over HTTP: each store served by the Hono adapter (startHttpServer, 127.0.0.1) in a process
 *    of its own. GET /conversation/{id}?transferables=false one at a time over a kept-alive
 *    connection, spread over every conversation (BENCH_PG_GETS, 1,000, at most, and at most twice
 *    BENCH_PG_SECONDS), p50/p99. Then search: the first search's time (PostgreSQL without a native
 *    search builds the service's in-memory index then), and BENCH_PG_QUERIES (150) queries of 1, 2
 *    and 3 words drawn by their frequency from the same texts, each sent to POST /conversations/search
 *    and POST /messages/search (limit 20, as the client sends them), one at a time; p50/p95
 *    (targets ≤ 10 / ≤ 30 ms). It prints what PostgreSQL is searched by: `native` when the store
 *    answers the search port, else the in-memory index `withSearch` keeps.
 * 3. Durable writes: BENCH_PG_WRITERS (50) concurrent writers, each createMessage into its own
 *    conversation, in-process in a fresh process, for BENCH_PG_SECONDS (5), on each store.
 * 4. Appends: for each checkpoint c of BENCH_PG_MESSAGES (100, 20,000), a conversation created with
 *    c − 100 messages grows by 100 createMessage calls (durable), timed one by one; the median of
 *    BENCH_PG_APPEND_REPEATS (2) conversations. Target: at 20,000 ÷ at 100 ≤ 2 on PostgreSQL.
 * 5. Instances: for each count of BENCH_PG_INSTANCES (1, 2, 4), that many service processes on the
 *    one PostgreSQL store, each serving HTTP, started afresh, and BENCH_PG_CONNECTIONS (32)
 *    connections spread evenly over them for BENCH_PG_SECONDS, each sending in turn three GET
 *    /conversation/{id} and one durable POST /messages/create, spread over every conversation
 *    (autocannon); requests/s in all. The JSON-file store's single process takes the same load.
 * 6. Known-item search on the developer chats (bench/search-quality.ts; skipped with one line
 *    without them): recall@3 over a service on PostgreSQL and over the embedded index (an in-memory
 *    service) in the same run. Targets: ≥ 0.85, and within 0.02 of the embedded index.
 *
 * It prints its plan first (each part's estimate), then each part as it starts and ends on stderr;
 * the figures go to stdout. Env: the knobs above, BENCH_PG_SKIP (comma-separated parts to leave
 * out: reads, writes, append, instances, recall) and BENCH_PG_BIN (the folder of PostgreSQL's
 * binaries; default the newest /usr/lib/postgresql/<version>/bin). Quick run (about a minute):
 * BENCH_PG_CONVERSATIONS=500 BENCH_PG_SECONDS=1 BENCH_PG_MESSAGES=100,1000 npm run bench:postgres
 */
import { postgresMissing } from './postgres-options.js';

// Checked before the parts (and the store's code) load, so that a machine without PostgreSQL hears so at once.
const missing = postgresMissing();
if (missing) console.error(`bench:postgres: ${missing}`);
else if (!(await (await import('./postgres-parts.js')).runPostgresBench())) process.exitCode = 1;
