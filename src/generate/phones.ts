// Australian and New Zealand phone numbers in the formats people write them.
import type { Region } from './places.js';
import { type Rng, weights } from './random.js';

export type PhoneStyle = 'international' | 'national' | 'plain';

export const PHONE_STYLES = weights<PhoneStyle>([
  ['international', 40],
  ['national', 40],
  ['plain', 20],
]);

const isNz = (region: Region) => region.country === 'New Zealand';

/** A landline in the region: `+61 2 9xxx xxxx`, `(02) 9xxx xxxx`, `02 9xxx xxxx` (NZ: 7-digit locals). */
export function landline(rng: Rng, region: Region, style: PhoneStyle): string {
  const lead = rng.pick(region.localPrefixes);
  const local = isNz(region)
    ? `${lead}${rng.digits(2)} ${rng.digits(4)}`
    : `${lead}${rng.digits(3)} ${rng.digits(4)}`;
  if (style === 'international') return `${isNz(region) ? '+64' : '+61'} ${region.area} ${local}`;
  if (style === 'national') return `(0${region.area}) ${local}`;
  return `0${region.area} ${local}`;
}

/** A mobile: `04xx xxx xxx` / `+61 4xx xxx xxx`, or NZ `021 xxx xxxx` / `+64 21 xxx xxxx`. */
export function mobile(rng: Rng, region: Region, style: PhoneStyle): string {
  if (isNz(region)) {
    const network = rng.pick(['1', '2', '7']);
    const rest = `${rng.digits(3)} ${rng.digits(4)}`;
    return style === 'international' ? `+64 2${network} ${rest}` : `02${network} ${rest}`;
  }
  const rest = `${rng.digits(2)} ${rng.digits(3)} ${rng.digits(3)}`;
  return style === 'international' ? `+61 4${rest}` : `04${rest}`;
}

/** A business-wide number: AU `1300 xxx xxx` / `1800 xxx xxx`, NZ `0800 xxx xxx`. */
export function businessLine(rng: Rng, region: Region): string {
  const prefix = isNz(region) ? '0800' : rng.pick(['1300', '1800']);
  return `${prefix} ${rng.digits(3)} ${rng.digits(3)}`;
}
