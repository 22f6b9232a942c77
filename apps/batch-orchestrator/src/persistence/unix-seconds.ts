/** A row's timestamp (Date, or text from the driver) as the API's epoch seconds. */
export function unixSecondsOf(value: Date | string): number {
  return Math.floor(new Date(value).getTime() / 1000);
}
