// One worker realm of the lie detector: a dedicated, shared or service worker runs the same
// techniques on its own functions and reads its own values, and answers whoever asks.
importScripts('techniques.js');
const reading = self.lieTechniques.workerReading(self);
if (typeof SharedWorkerGlobalScope === 'function' && self instanceof SharedWorkerGlobalScope) {
  self.onconnect = (event) => reading.then((answer) => event.ports[0].postMessage(answer));
} else if (typeof ServiceWorkerGlobalScope === 'function' && self instanceof ServiceWorkerGlobalScope) {
  self.addEventListener('install', () => self.skipWaiting());
  self.addEventListener('message', (event) => reading.then((answer) => event.source.postMessage(answer)));
} else {
  reading.then((answer) => self.postMessage(answer));
}
