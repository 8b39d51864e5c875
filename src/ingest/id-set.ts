// A set of strings held compactly: their UTF-8 bytes one after another in one buffer, found through an
// open-addressing table of their hashes. A refresh's files name every record of the entity, millions of
// them: as a Set of strings, the ids of 1,000,000 people held 54 MiB of heap; here 36 MiB of buffers, read in
// 1.3-1.6 s rather than 1.7-2.0 (BENCHMARKS.md). The comparison stays exact: two ids are the same when
// their bytes are.

/** A table slot's member (its number + 1), or none. */
const EMPTY = 0;
/** The table's first size; it doubles whenever it would be more than half full. */
const FIRST_SLOTS = 1024;

/** 32 bits of the bytes (FNV-1a, then MurmurHash3's finaliser, so that linear probing finds few neighbours). */
function hashOf(bytes: Buffer, length: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/**
 * Strings added and asked after, exactly, in a few dozen bytes each.
 * @example const ids = new IdSet(); ids.add('p1'); ids.has('p1') === true; ids.add('p1') === false;
 */
export class IdSet {
  /** The members' UTF-8 bytes, one after another. */
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** Where each member's bytes end (its start is where the one before it ends). */
  private ends = new Uint32Array(FIRST_SLOTS / 2);
  private count = 0;
  /** Per slot: EMPTY, or the member's number + 1; and the member's hash, to compare bytes only on a match. */
  private slots = new Uint32Array(FIRST_SLOTS);
  private hashes = new Uint32Array(FIRST_SLOTS);
  /** The string being added or asked after, as UTF-8. */
  private scratch = Buffer.allocUnsafe(256);

  get size(): number {
    return this.count;
  }

  /** Adds `id`: true when it is new, false when the set held it already. */
  add(id: string): boolean {
    const length = this.encode(id);
    const hash = hashOf(this.scratch, length);
    const slot = this.find(hash, length);
    if (this.slots[slot] !== EMPTY) return false;
    this.append(length);
    this.slots[slot] = this.count;
    this.hashes[slot] = hash;
    if (this.count * 2 > this.slots.length) this.growTable();
    return true;
  }

  has(id: string): boolean {
    const length = this.encode(id);
    return this.slots[this.find(hashOf(this.scratch, length), length)] !== EMPTY;
  }

  /** Lets go of the members (a set that is done with keeps nothing). */
  clear(): void {
    this.bytes = Buffer.allocUnsafe(0);
    this.ends = new Uint32Array(0);
    this.slots = new Uint32Array(FIRST_SLOTS);
    this.hashes = new Uint32Array(FIRST_SLOTS);
    this.used = 0;
    this.count = 0;
  }

  /** Puts `id`'s UTF-8 bytes in the scratch buffer; their length. */
  private encode(id: string): number {
    // Three bytes at most for each UTF-16 code unit.
    if (id.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(id.length * 3);
    return this.scratch.write(id, 0, 'utf8');
  }

  /** The slot of the member whose bytes are the scratch buffer's first `length`, or the empty slot it would take. */
  private find(hash: number, length: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const member = this.slots[slot]!;
      if (member === EMPTY) return slot;
      if (this.hashes[slot] === hash && this.holds(member - 1, length)) return slot;
    }
  }

  private holds(member: number, length: number): boolean {
    const start = member === 0 ? 0 : this.ends[member - 1]!;
    const end = this.ends[member]!;
    return end - start === length && this.bytes.compare(this.scratch, 0, length, start, end) === 0;
  }

  /** Appends the scratch buffer's first `length` bytes as the next member. */
  private append(length: number): void {
    if (this.used + length > this.bytes.length) {
      const bytes = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + length));
      this.bytes.copy(bytes, 0, 0, this.used);
      this.bytes = bytes;
    }
    if (this.count === this.ends.length) {
      const ends = new Uint32Array(Math.max(this.ends.length * 2, FIRST_SLOTS / 2));
      ends.set(this.ends);
      this.ends = ends;
    }
    this.scratch.copy(this.bytes, this.used, 0, length);
    this.used += length;
    this.ends[this.count++] = this.used;
  }

  /** Doubles the table, placing each member again by its hash. */
  private growTable(): void {
    const { slots, hashes } = this;
    this.slots = new Uint32Array(slots.length * 2);
    this.hashes = new Uint32Array(slots.length * 2);
    const mask = this.slots.length - 1;
    for (let old = 0; old < slots.length; old++) {
      const member = slots[old]!;
      if (member === EMPTY) continue;
      let slot = hashes[old]! & mask;
      while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      this.slots[slot] = member;
      this.hashes[slot] = hashes[old]!;
    }
  }
}
