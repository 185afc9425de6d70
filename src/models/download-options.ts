const MiB = 1024 * 1024;

/** How model downloads behave (`createService({ downloads })`): what they leave on the disk, how long they wait, what they may reach. */
export interface DownloadOptions {
  /**
   * Bytes a download leaves free on the disk of the models' folder, so the data file and the rest
   * of the machine keep room to write. A model whose declared size does not fit is refused before
   * anything is written; a download that reaches the reserve stops and removes its partial file.
   * Default 512 MiB.
   */
  readonly minFreeBytes?: number;
  /**
   * The stall window: a download that receives fewer than `stallBytes` in this long fails
   * (`stalled: …`), whether the server went silent or drips a byte now and then. Default 60 s.
   */
  readonly stallTimeoutMs?: number;
  /**
   * The least a download must receive in each `stallTimeoutMs` window. Default 64 KiB, about
   * 1 KiB/s over the default minute: far below any real link, far above a server that drips.
   */
  readonly stallBytes?: number;
  /** How long a download waits for the answer's headers (connection, TLS and redirects included). Default 30 s. */
  readonly connectTimeoutMs?: number;
  /**
   * `'refuse'`: a download may not connect to a loopback, link-local, private (RFC 1918, CGNAT,
   * IPv6 unique local), multicast or unspecified address, checked on every address a host name
   * resolves to and on every redirect, so that a client of a service reachable over the network
   * cannot make it probe the machine's own network. `'allow'`: any address. Default `'allow'`;
   * the example server and the command refuse when they listen on a non-loopback address.
   */
  readonly privateAddresses?: 'allow' | 'refuse';
  /** Host names or IP addresses a download may reach even when `privateAddresses` is `'refuse'`. Default none. */
  readonly allowedHosts?: readonly string[];
}

/** {@link DownloadOptions} with every default filled in. */
export type ResolvedDownloadOptions = Required<DownloadOptions>;

/** The options with their defaults; throws on a value that cannot work (a negative size, a zero timeout). */
export function resolveDownloadOptions(options: DownloadOptions = {}): ResolvedDownloadOptions {
  const resolved: ResolvedDownloadOptions = {
    minFreeBytes: options.minFreeBytes ?? 512 * MiB,
    stallTimeoutMs: options.stallTimeoutMs ?? 60_000,
    stallBytes: options.stallBytes ?? 64 * 1024,
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    privateAddresses: options.privateAddresses ?? 'allow',
    allowedHosts: options.allowedHosts ?? [],
  };
  for (const name of ['minFreeBytes', 'stallBytes'] as const) {
    if (!Number.isSafeInteger(resolved[name]) || resolved[name] < 0) throw new Error(`downloads.${name} must be a whole number ≥ 0.`);
  }
  for (const name of ['stallTimeoutMs', 'connectTimeoutMs'] as const) {
    if (!Number.isFinite(resolved[name]) || resolved[name] <= 0) throw new Error(`downloads.${name} must be a number of milliseconds > 0.`);
  }
  if (resolved.privateAddresses !== 'allow' && resolved.privateAddresses !== 'refuse') {
    throw new Error(`downloads.privateAddresses must be 'allow' or 'refuse', not ${JSON.stringify(resolved.privateAddresses)}.`);
  }
  return resolved;
}
