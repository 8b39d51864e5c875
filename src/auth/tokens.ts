// API tokens: a recognisable prefix, 178 random bits and a CRC32 checksum; only SHA-256 hashes are stored.
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Every token starts with this, so secret scanners can find a leaked one. */
export const TOKEN_PREFIX = 'enr_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 30; // 30 × log2(62) ≈ 178 bits
const CHECKSUM_CHARS = 6; // 62^6 > 2^32
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

function base62(value: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** `count` characters drawn uniformly from the base62 alphabet (rejection sampling, no modulo bias). */
export function randomBase62(count: number): string {
  let out = '';
  while (out.length < count) {
    for (const byte of randomBytes(count * 2)) {
      if (byte < 248 && out.length < count) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

const checksumOf = (body: string) => base62(crc32(body), CHECKSUM_CHARS);

/**
 * Mints a new token.
 * @example mintToken() // 'enr_3kTq…' (40 characters)
 */
export function mintToken(): string {
  const body = TOKEN_PREFIX + randomBase62(RANDOM_CHARS);
  return body + checksumOf(body);
}

/** True when the token has the right shape and checksum: a mistyped token is refused without a database read. */
export function isWellFormedToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  const split = token.length - CHECKSUM_CHARS;
  return checksumOf(token.slice(0, split)) === token.slice(split);
}

/** The stored form of a token: hex SHA-256. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A public, non-secret key id such as `key_7GdK2mQx9a`. */
export function mintKeyId(): string {
  return `key_${randomBase62(10)}`;
}

/** A watchlist's id such as `wl_4hT9xQ2mPz8a`: not a secret, but not to be guessed either. */
export function mintWatchlistId(): string {
  return `wl_${randomBase62(12)}`;
}

/** A list job's id such as `ls_4hT9xQ2mPz8a`: not a secret, but not to be guessed either. */
export function mintListId(): string {
  return `ls_${randomBase62(12)}`;
}
