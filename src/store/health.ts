// The health role of the store: whether it answers (readiness), and how large it is (the admin's stats).

export interface HealthStore {
  /** Resolves when the store answers queries; rejects otherwise. */
  ping(): Promise<void>;
  /** How many bytes the store takes on disk: the SQLite file's pages (its write-ahead log aside), or the PostgreSQL database. */
  sizeBytes(): Promise<number>;
}
