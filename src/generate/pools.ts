// Word pools drawn from faker once per seed; records then pick from them with the fast PRNG.
import { base, en, en_AU, Faker } from '@faker-js/faker';
import { streamSeed } from './random.js';

export interface Pools {
  femaleFirst: readonly string[];
  maleFirst: readonly string[];
  last: readonly string[];
  /** Business nouns such as "platforms" and "supply-chains", for keywords. */
  buzzNouns: readonly string[];
  catchPhrases: readonly string[];
  buzzPhrases: readonly string[];
}

const POOL_KIND = 0x706f6f6c;
const cache = new Map<number, Pools>();

/** Pools for a seed, built on first use; a few seeds are kept. */
export function poolsFor(seed: number): Pools {
  let pools = cache.get(seed);
  if (pools) return pools;
  pools = buildPools(seed);
  if (cache.size >= 4) cache.delete(cache.keys().next().value!);
  cache.set(seed, pools);
  return pools;
}

function draw(count: number, make: () => string): string[] {
  return Array.from({ length: count }, make);
}

function buildPools(seed: number): Pools {
  // en_AU's first names are short lists (100 a sex); a share of en's adds variety.
  const au = new Faker({ locale: [en_AU, en, base] });
  const world = new Faker({ locale: [en, base] });
  au.seed(streamSeed(seed, POOL_KIND, 0));
  world.seed(streamSeed(seed, POOL_KIND, 1));
  const name = (sex: 'female' | 'male') => () =>
    au.number.float() < 0.85 ? au.person.firstName(sex) : world.person.firstName(sex);
  return {
    femaleFirst: draw(400, name('female')),
    maleFirst: draw(400, name('male')),
    last: draw(800, () => au.person.lastName()),
    buzzNouns: draw(200, () => au.company.buzzNoun()),
    catchPhrases: draw(300, () => au.company.catchPhrase()),
    buzzPhrases: draw(300, () => au.company.buzzPhrase()),
  };
}
