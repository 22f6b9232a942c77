export * from './source-thread';
export * from './idle-memory-reclaimer';
