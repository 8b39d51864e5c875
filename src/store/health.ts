// The health role of the store: whether it answers (readiness).

export interface HealthStore {
  /** Resolves when the store answers queries; rejects otherwise. */
  ping(): Promise<void>;
}
