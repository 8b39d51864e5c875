// A stored record's JSON text reduced to a selection, read as text: the selected members' bytes are copied as
// stored, and the rest skipped, so no value is parsed or re-serialised — however deep it nests.
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  MAX_JSON_DEPTH,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  stringEnd,
} from '../schemas/json-text.js';
import type { FieldTree } from './fields.js';

const COMMA = 0x2c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** A stored record's text and the projection written so far. */
class Projection {
  out = '';
  constructor(private readonly text: string) {}

  private space(at: number): number {
    let i = at;
    while (isSpace(this.text.charCodeAt(i))) i++;
    return i;
  }

  /** The offset just past the value that starts at `at`, found without recursion. */
  private end(at: number): number {
    const { text } = this;
    const first = text.charCodeAt(at);
    if (first === QUOTE) return stringEnd(text, at) + 1;
    let i = at;
    if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
      for (let c = first; !(isSpace(c) || c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY); ) {
        c = text.charCodeAt(++i);
        if (Number.isNaN(c)) break;
      }
      return i;
    }
    for (let depth = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = stringEnd(text, i);
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
    }
    return text.length;
  }

  /** Writes the value at `at` whole; returns the offset past it. */
  copy(at: number): number {
    const end = this.end(at);
    this.out += this.text.slice(at, end);
    return end;
  }

  /**
   * Writes the selected part of the value at `at`: an object's selected members, each element of an array
   * projected alike, anything else whole. Arrays of arrays deeper than any record may nest (import refuses
   * them) are copied whole rather than followed. Returns the offset past the value.
   */
  value(at: number, tree: FieldTree, depth: number): number {
    const c = this.text.charCodeAt(at);
    if (depth > MAX_JSON_DEPTH) return this.copy(at);
    if (c === OPEN_OBJECT) return this.object(at, tree, depth);
    if (c === OPEN_ARRAY) return this.array(at, tree, depth);
    return this.copy(at);
  }

  private object(at: number, tree: FieldTree, depth: number): number {
    const { text } = this;
    this.out += '{';
    let written = false;
    let i = this.space(at + 1);
    while (text.charCodeAt(i) === QUOTE) {
      const keyEnd = stringEnd(text, i) + 1;
      const key = text.slice(i, keyEnd);
      const name = key.includes('\\') ? (JSON.parse(key) as string) : key.slice(1, -1);
      const start = this.space(this.space(keyEnd) + 1); // past the colon
      const selected = tree.get(name);
      let end: number;
      if (selected === undefined) end = this.end(start);
      else {
        this.out += written ? `,${key}:` : `${key}:`;
        written = true;
        end = selected === true ? this.copy(start) : this.value(start, selected, depth + 1);
      }
      i = this.space(end);
      if (text.charCodeAt(i) === COMMA) i = this.space(i + 1);
    }
    this.out += '}';
    return i + 1;
  }

  private array(at: number, tree: FieldTree, depth: number): number {
    const { text } = this;
    this.out += '[';
    let i = this.space(at + 1);
    for (let first = true; text.charCodeAt(i) !== CLOSE_ARRAY && i < text.length; first = false) {
      if (!first) this.out += ',';
      i = this.space(this.value(i, tree, depth + 1));
      if (text.charCodeAt(i) === COMMA) i = this.space(i + 1);
    }
    this.out += ']';
    return i + 1;
  }
}

/**
 * A stored record (its JSON text) reduced to the selection: absent fields stay absent, nulls stay null, the
 * record's own key order is kept, and each value kept is the record's own text (numbers, escapes and spacing
 * inside it as stored).
 * @example projectRecord('{"id":"fp1","name":"Jane","position":"CFO"}', catalogue.parse('name'))
 * // '{"id":"fp1","name":"Jane"}'
 */
export function projectRecord(body: string | Buffer, tree: FieldTree): string {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const projection = new Projection(text);
  const start = text.search(/\S/);
  projection.value(start < 0 ? 0 : start, tree, 0);
  return projection.out;
}
