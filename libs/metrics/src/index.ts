export * from './platform-metrics';
export * from './metrics-access';
