import { BlockList, isIP } from 'node:net';

/**
 * Addresses no adapter may download from: "this network", private (RFC 1918), carrier-grade NAT,
 * loopback, link-local (cloud metadata at 169.254.169.254), IETF protocol assignments,
 * documentation, benchmarking, multicast, reserved and broadcast for IPv4; unspecified,
 * loopback, unique-local, link-local, site-local, multicast, documentation and the NAT64 prefix
 * for IPv6 (the IANA special-purpose registries).
 */
const notPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3], // multicast, reserved and broadcast: 224.0.0.0 to 255.255.255.255
] as const)
  notPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127], // :: and ::1
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  notPublic.addSubnet(network, prefix, 'ipv6');

/** True for an address on the public internet; false for private, loopback and the like (or not an address). */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) return !notPublic.check(bare, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1, ::ffff:7f00:1) is judged as IPv4.
  const mapped = /^::ffff:(?:0:)?(.+)$/i.exec(bare)?.[1];
  if (mapped !== undefined) {
    if (isIP(mapped) === 4) return !notPublic.check(mapped, 'ipv4');
    const [high = '', low = ''] = mapped.split(':');
    const value = (Number.parseInt(high, 16) << 16) | Number.parseInt(low, 16);
    if (mapped.split(':').length !== 2 || Number.isNaN(value)) return false;
    const dotted = [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
    return !notPublic.check(dotted, 'ipv4');
  }
  return !notPublic.check(bare, 'ipv6');
}
