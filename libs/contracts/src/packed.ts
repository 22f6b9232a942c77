/** A value that may have been parked in the transfer store (see MessageBus.pack). */
export type Packed<T> = { inline: T } | { object: string; bytes: number };
