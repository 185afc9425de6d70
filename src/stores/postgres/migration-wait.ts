import type { PostgresClient } from './pool.js';

/**
 * Takes the migrations' lock (a transaction-scoped advisory lock: key `hashtext(name)`, -1) in the
 * client's open transaction. When another connection holds it (another instance migrating the
 * schema), says so first, in one line naming that connection (its process id on the server,
 * address, `application_name`, which a migrating instance keeps saying how far it got, and since
 * when), then waits for it: as long as the other's step takes, which it logs itself; a holder
 * that dies frees the lock when its connection closes (or sits idle in its transaction past
 * `idle_in_transaction_session_timeout`). Answers the milliseconds waited (0 when the lock was free).
 */
export async function takeMigrationLock(
  client: PostgresClient,
  name: string,
  schema: string,
  log: (message: string) => void,
  queryTimeoutMs: number,
): Promise<number> {
  const { rows } = await client.query({ text: 'SELECT pg_try_advisory_xact_lock(hashtext($1), -1) AS took', values: [name] });
  if ((rows[0] as { took: boolean }).took) return 0;
  const started = Date.now();
  log(`PostgreSQL schema "${schema}" is being migrated by ${await holder(client, name)}: waiting for it before starting.`);
  await client.query({ text: 'SELECT pg_advisory_xact_lock(hashtext($1), -1)', values: [name], query_timeout: queryTimeoutMs });
  return Date.now() - started;
}

/** The connection that holds the lock, described for a log line. */
async function holder(client: PostgresClient, name: string): Promise<string> {
  // A lock of two int4 keys is shown as classid (the first), objid (the second) and objsubid 2.
  const { rows } = await client.query({
    text: `
      SELECT a.pid, a.application_name, host(a.client_addr) AS address, round(extract(epoch FROM now() - a.xact_start))::int AS seconds
      FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = hashtext($1)::oid AND l.objid = (-1)::oid AND l.objsubid = 2`,
    values: [name],
  });
  const row = rows[0] as { pid: number; application_name: string | null; address: string | null; seconds: number | null } | undefined;
  // Gone since (it committed between the two statements): the wait is then short.
  if (!row) return 'another instance';
  const parts = [`server process ${row.pid}`];
  if (row.address) parts.push(`from ${row.address}`);
  if (row.application_name) parts.push(`"${row.application_name}"`);
  if (row.seconds !== null) parts.push(`for ${row.seconds} s so far`);
  return `another connection (${parts.join(', ')})`;
}
