/**
 * Which network addresses an outbound request chosen by a user (a webhook URL) may reach: public unicast only,
 * unless the operator allows some networks by configuration (tests allow their loopback receivers that way).
 * Refused: loopback, private (RFC 1918, ULA), link-local, carrier-grade NAT, documentation and benchmarking
 * ranges, multicast, reserved, "this network", and the IPv6 forms that embed an IPv4 address (mapped,
 * NAT64, 6to4), which are checked as the IPv4 address they carry.
 *
 * @example
 * const policy = createAddressPolicy({ allow: ["127.0.0.0/8"] });
 * policy.refusal("10.0.0.7"); // "10.0.0.7 is a private address (10.0.0.0/8)"
 * policy.refusal("127.0.0.1"); // undefined: allowed by configuration
 */
import { BlockList, isIP } from "node:net";

/** [network, prefix, what it is] */
const IPV4_RANGES: [string, number, string][] = [
  ["0.0.0.0", 8, "a 'this network' address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a carrier-grade NAT address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "an IETF protocol address"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a 6to4 relay address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

const IPV6_RANGES: [string, number, string][] = [
  ["::", 128, "the unspecified address"],
  ["::1", 128, "a loopback address"],
  ["100::", 64, "a discard address"],
  ["2001::", 23, "an IETF protocol address"],
  ["2001:db8::", 32, "a documentation address"],
  ["fc00::", 7, "a unique local (private) address"],
  ["fe80::", 10, "a link-local address"],
  ["fec0::", 10, "a site-local address"],
  ["ff00::", 8, "a multicast address"],
];

export interface AddressPolicy {
  /** Why `ip` may not be reached, or undefined when it may. `ip` must be an IP literal. */
  refusal(ip: string): string | undefined;
}

export interface CreateAddressPolicyParameters {
  /** Networks allowed although not public, as CIDR (`127.0.0.0/8`, `fd00::/8`) or single addresses. */
  allow?: readonly string[];
}

/** A malformed entry of an allow list. */
export class InvalidNetworkError extends Error {
  override name = "InvalidNetworkError" as const;
}

function addNetwork(list: BlockList, entry: string): void {
  const [address = "", prefixText] = entry.trim().split("/");
  const family = isIP(address);
  if (family === 0) throw new InvalidNetworkError(`"${entry}" is not an IP address or CIDR network`);
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max)
    throw new InvalidNetworkError(`"${entry}" has a bad prefix length`);
  list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
}

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`). */
export function embeddedIpv4(ip: string): string | undefined {
  if (isIP(ip) !== 6) return undefined;
  const groups = expandIpv6(ip);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6] as number, groups[7] as number);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6] as number, groups[7] as number);
  if (groups[0] === 0x2002) return v4(groups[1] as number, groups[2] as number);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 literal (with an IPv4 tail or `::`). */
function expandIpv6(ip: string): number[] {
  let text = ip.split("%")[0] as string;
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const fill = rest === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((g) => Number.parseInt(g, 16));
}

export function createAddressPolicy(p: CreateAddressPolicyParameters = {}): AddressPolicy {
  const allowed = new BlockList();
  for (const entry of p.allow ?? []) addNetwork(allowed, entry);
  const ranges = (family: "ipv4" | "ipv6", table: [string, number, string][]) =>
    table.map(([network, prefix, what]) => {
      const list = new BlockList();
      list.addSubnet(network, prefix, family);
      return { list, what, cidr: `${network}/${prefix}` };
    });
  const v4 = ranges("ipv4", IPV4_RANGES);
  const v6 = ranges("ipv6", IPV6_RANGES);

  const isAllowed = (ip: string, family: "ipv4" | "ipv6") => (p.allow?.length ? allowed.check(ip, family) : false);

  return {
    refusal(ip) {
      const family = isIP(ip);
      if (family === 0) return `${ip} is not an IP address`;
      if (family === 4) {
        if (isAllowed(ip, "ipv4")) return undefined;
        const hit = v4.find((r) => r.list.check(ip, "ipv4"));
        return hit ? `${ip} is ${hit.what} (${hit.cidr})` : undefined;
      }
      if (isAllowed(ip, "ipv6")) return undefined;
      const inner = embeddedIpv4(ip);
      if (inner !== undefined) {
        const why = this.refusal(inner);
        return why ? `${ip} carries ${inner}: ${why}` : undefined;
      }
      const hit = v6.find((r) => r.list.check(ip, "ipv6"));
      return hit ? `${ip} is ${hit.what} (${hit.cidr})` : undefined;
    },
  };
}
