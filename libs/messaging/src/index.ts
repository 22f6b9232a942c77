export * from './in-process-bus';
export * from './in-process.transport';
export * from './transport.factory';
export * from './message-bus';
export * from './message-handling.enhancers';
export * from './messaging.module';
export * from './job-queue';
export * from './ops-event-publisher';
