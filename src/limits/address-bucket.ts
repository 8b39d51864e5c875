// The unit a client address is limited as: one IPv4 address, or one IPv6 subscriber's /64.

const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * The unit an address is limited as: an IPv4 address as it is, an IPv6 one by its /64 — one subscriber's
 * network, in which a client can choose any of 2^64 addresses.
 * @example addressBucket('2001:db8:1:2:3:4:5:6') // '2001:db8:1:2::/64'
 */
export function addressBucket(address: string): string {
  const mapped = IPV4_MAPPED.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
