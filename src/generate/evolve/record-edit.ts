// A record the simulation changes: what it was, what it is, and which fields the simulation set.

export class RecordEdit<T extends object> {
  /** The record as read: a shallow copy, which holds because every change replaces a top-level value. */
  readonly before: T;
  private readonly touched = new Set<string>();

  constructor(readonly record: T) {
    this.before = { ...record };
  }

  /** Replaces a top-level value (never changes one in place, so `before` keeps the old one). */
  set<K extends keyof T & string>(field: K, value: T[K]): void {
    this.record[field] = value;
    this.touched.add(field);
  }

  get touchedAny(): boolean {
    return this.touched.size > 0;
  }

  /**
   * The fields the simulation set that now hold another value, in the record's key order. A field set
   * twice may be back where it started (a title changed and changed back), so the values decide, not
   * the setting. The simulation never removes a field.
   */
  changedFields(): string[] {
    const before = this.before as Record<string, unknown>;
    const after = this.record as Record<string, unknown>;
    return Object.keys(after).filter(
      (field) => this.touched.has(field) && JSON.stringify(before[field]) !== JSON.stringify(after[field]),
    );
  }
}
