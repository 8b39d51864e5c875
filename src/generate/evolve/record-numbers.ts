// Record numbers read back from generated ids, so an evolved set mints new ids after the last one it holds.
import { ID_SPACE } from '../numbering.js';

const MILLION = 1_000_000;

/** (a × b) mod 10^12 for a, b < 10^12, in halves of six digits so that no product passes 2^53. */
function mulMod(a: number, b: number): number {
  const [ah, al] = [Math.floor(a / MILLION), a % MILLION];
  const [bh, bl] = [Math.floor(b / MILLION), b % MILLION];
  return (((ah * bl + al * bh) % MILLION) * MILLION + al * bl) % ID_SPACE;
}

/** The inverse of `factor` modulo 10^12 (handles.ts scatters with factors coprime to 10). */
function inverse(factor: number): number {
  let [r0, r1] = [BigInt(ID_SPACE), BigInt(factor)];
  let [t0, t1] = [0n, 1n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [t0, t1] = [t1, t0 - q * t1];
  }
  return Number(((t0 % BigInt(ID_SPACE)) + BigInt(ID_SPACE)) % BigInt(ID_SPACE));
}

/** Undoes handles.ts's scatter for one prefix: the record number of an id minted by the generator. */
function unscatter(prefix: string, factor: number, offset: number) {
  const inv = inverse(factor);
  const pattern = new RegExp(`^${prefix}\\d{12}$`);
  return (id: string): number | undefined => {
    if (!pattern.test(id)) return undefined;
    const value = Number(id.slice(prefix.length));
    return mulMod((value - offset + ID_SPACE) % ID_SPACE, inv);
  };
}

/** The record number of a generated company id (`f` + 12 digits), else undefined. */
export const companyNumber = unscatter('f', 48_271, 117_274);

/** The record number of a generated person id (`fp` + 12 digits), else undefined. */
export const personNumber = unscatter('fp', 69_317, 67_890);
