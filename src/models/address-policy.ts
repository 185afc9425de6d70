import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DownloadFailure } from './download-failure.js';

/**
 * What a download may not reach under `privateAddresses: 'refuse'`, by what each range is. An IPv4
 * range also covers its IPv4-mapped IPv6 form (`::ffff:127.0.0.1`): `BlockList` checks those.
 */
const RANGES: readonly (readonly [what: string, network: string, prefix: number])[] = [
  ['an unspecified', '0.0.0.0', 8],
  ['a loopback', '127.0.0.0', 8],
  ['a private', '10.0.0.0', 8],
  ['a private', '172.16.0.0', 12],
  ['a private', '192.168.0.0', 16],
  ['a carrier-grade NAT', '100.64.0.0', 10],
  ['a link-local', '169.254.0.0', 16],
  ['a multicast', '224.0.0.0', 4],
  ['a reserved', '240.0.0.0', 4],
  ['an unspecified', '::', 128],
  ['a loopback', '::1', 128],
  // The deprecated IPv4-compatible form (`::7f00:1`): no public host uses it.
  ['a reserved', '::', 96],
  ['a unique local (private)', 'fc00::', 7],
  ['a link-local', 'fe80::', 10],
  ['a multicast', 'ff00::', 8],
];

const BLOCKED: readonly (readonly [what: string, list: BlockList])[] = RANGES.map(([what, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return [what, list] as const;
});

/** `[::1]` → `::1`, `Example.COM.` → `example.com`: the form host names are compared in. */
const normalizeHost = (host: string) =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

/**
 * Which addresses downloads may connect to. With `'refuse'`, each hop of a download (redirects
 * included) goes through {@link AddressPolicy.lookupFor}: an IP literal is checked at once, and a
 * host name is checked on every address it resolves to, at connect time, so a name that resolves
 * to a public address when asked first and to 127.0.0.1 when connecting (DNS rebinding) is caught.
 */
export interface AddressPolicy {
  /**
   * The `lookup` to connect to `url` with, or undefined when the host needs none (allowed, or an IP
   * literal that passed). Throws a `refused` {@link DownloadFailure} for an IP literal it refuses.
   */
  lookupFor(url: URL): LookupFunction | undefined;
}

/** The policy of `privateAddresses`, or undefined for `'allow'` (no check at all). */
export function addressPolicy(privateAddresses: 'allow' | 'refuse', allowedHosts: readonly string[]): AddressPolicy | undefined {
  if (privateAddresses === 'allow') return undefined;
  const allowedNames = new Set(allowedHosts.map(normalizeHost));
  const allowedAddresses = new BlockList();
  for (const host of allowedNames) {
    const family = isIP(host);
    if (family !== 0) allowedAddresses.addAddress(host, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** Throws when `address` is in a refused range and not allowed. */
  const check = (address: string, host: string) => {
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (allowedAddresses.check(address, type)) return;
    const what = BLOCKED.find(([, list]) => list.check(address, type))?.[0];
    if (what === undefined) return;
    const named = host === address ? address : `${host} (${address})`;
    throw new DownloadFailure(
      `refused: ${named} is ${what} address (downloads may not reach this machine or its private network; allow it with allowedHosts)`,
      true,
    );
  };

  const lookup =
    (host: string): LookupFunction =>
    (hostname, options, callback) => {
      // Resolve every address, whatever Node asked for, so that none of them slips past unchecked.
      dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        try {
          for (const { address } of addresses) check(address, host);
        } catch (refused) {
          return callback(refused as NodeJS.ErrnoException, '', 0);
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0];
        if (!first) return callback(Object.assign(new Error(`${hostname} resolved to no address`), { code: 'ENOTFOUND' }), '', 0);
        callback(null, first.address, first.family);
      });
    };

  return {
    lookupFor(url) {
      const host = normalizeHost(url.hostname);
      if (allowedNames.has(host)) return undefined;
      // Node calls no lookup for an IP literal: check it here.
      if (isIP(host) !== 0) {
        check(host, host);
        return undefined;
      }
      return lookup(host);
    },
  };
}
