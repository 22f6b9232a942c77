export * from './bounded-contexts';
export * from './subjects';
export * from './message-map';
export * from './health/health.messages';
export * from './billing/quota.messages';
export * from './billing/credit-reservation.messages';
export * from './scrape/scrape-request';
export * from './scrape/scrape-request-rules';
