/** Credits are counted per calendar month in UTC. */
export function billingMonthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** Unix seconds of the first instant of the next UTC month: when the quota resets. */
export function billingMonthResetOf(at: Date): number {
  return Math.floor(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) / 1000);
}
