// A lie detector of our own (issue 68): the public techniques lie-detecting fingerprinters apply to
// the functions and values a stealth browser changes (and to a sample it does not), each check
// reported as a lie or not, in the window (against a fresh frame's copy) and in a dedicated, a
// shared and a service worker (techniques.js, realm.js). A native function of an unmodified Chromium
// passes every check; a value reads the same in every realm as in the window. Writes
// {checks: {name: {lie, detail}}, values: {realm: {...}}} into #result.
(async () => {
  const checks = {};
  const record = (name, lie, detail) => {
    checks[name] = { lie: Boolean(lie), detail: lie ? String(detail ?? '').slice(0, 200) : '' };
  };
  const { attempt, checkFunction, checkGetter, valuesOf } = self.lieTechniques;

  // A fresh realm: an about:blank frame made now, whose built-ins are the browser's own unless the
  // browser's changes reach it too (then its answers must still agree with the window's).
  const frame = document.createElement('iframe');
  frame.style.display = 'none';
  document.body.appendChild(frame);
  const other = frame.contentWindow;

  // [label, the function in a realm]
  const methods = [
    ['Function.prototype.toString', (w) => w.Function.prototype.toString, 'toString'],
    ['WebGLRenderingContext.getParameter', (w) => w.WebGLRenderingContext.prototype.getParameter, 'getParameter'],
    ['WebGL2RenderingContext.getParameter', (w) => w.WebGL2RenderingContext.prototype.getParameter, 'getParameter'],
    ['HTMLCanvasElement.toDataURL', (w) => w.HTMLCanvasElement.prototype.toDataURL, 'toDataURL'],
    ['HTMLCanvasElement.getContext', (w) => w.HTMLCanvasElement.prototype.getContext, 'getContext'],
    ['CanvasRenderingContext2D.getImageData', (w) => w.CanvasRenderingContext2D.prototype.getImageData, 'getImageData'],
    ['CanvasRenderingContext2D.measureText', (w) => w.CanvasRenderingContext2D.prototype.measureText, 'measureText'],
    ['AnalyserNode.getFloatFrequencyData', (w) => w.AnalyserNode.prototype.getFloatFrequencyData, 'getFloatFrequencyData'],
    ['AudioBuffer.getChannelData', (w) => w.AudioBuffer.prototype.getChannelData, 'getChannelData'],
    ['Date.getTimezoneOffset', (w) => w.Date.prototype.getTimezoneOffset, 'getTimezoneOffset'],
    ['Intl.DateTimeFormat.resolvedOptions', (w) => w.Intl.DateTimeFormat.prototype.resolvedOptions, 'resolvedOptions'],
    ['Permissions.query', (w) => w.Permissions.prototype.query, 'query'],
    ['Element.getClientRects', (w) => w.Element.prototype.getClientRects, 'getClientRects'],
    ['Element.attachShadow', (w) => w.Element.prototype.attachShadow, 'attachShadow'],
    ['Document.createElement', (w) => w.Document.prototype.createElement, 'createElement'],
  ];
  const getters = [
    ['Navigator', 'userAgent'],
    ['Navigator', 'appVersion'],
    ['Navigator', 'platform'],
    ['Navigator', 'vendor'],
    ['Navigator', 'webdriver'],
    ['Navigator', 'language'],
    ['Navigator', 'languages'],
    ['Navigator', 'hardwareConcurrency'],
    ['Navigator', 'deviceMemory'],
    ['Navigator', 'plugins'],
    ['Navigator', 'mimeTypes'],
    ['Navigator', 'permissions'],
    ['Navigator', 'userAgentData'],
    ['Navigator', 'maxTouchPoints'],
    ['Screen', 'width'],
    ['Screen', 'height'],
    ['Screen', 'colorDepth'],
    ['Screen', 'availWidth'],
  ];
  for (const [label, of, name] of methods)
    checkFunction(record, label, attempt(() => of(window)).value, name, attempt(() => of(other)).value);
  for (const [iface, prop] of getters) checkGetter(record, window, iface, prop, other, iface === 'Navigator' ? navigator : screen);
  for (const iface of ['Navigator', 'Screen']) {
    const order = (w) => Object.getOwnPropertyNames(w[iface].prototype).join(',');
    record(`key-order/${iface}`, order(window) !== order(other), 'the prototype lists its properties in another order than a fresh realm');
  }

  // The worker realms: each judges its own functions (rows "<realm>:<check>") and reads its values.
  const answerOf = (start) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ error: 'the worker did not answer' }), 8000);
      const done = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      try {
        start(done);
      } catch (error) {
        done({ error: String(error) });
      }
    });
  const workers = {
    dedicated: await answerOf((done) => {
      const worker = new Worker('realm.js');
      worker.onmessage = (event) => done(event.data);
      worker.onerror = (event) => done({ error: String(event.message) });
    }),
    shared: await answerOf((done) => {
      const worker = new SharedWorker('realm.js');
      worker.port.onmessage = (event) => done(event.data);
      worker.onerror = (event) => done({ error: String(event.message ?? 'shared worker error') });
    }),
    service: await answerOf((done) => {
      navigator.serviceWorker.addEventListener('message', (event) => done(event.data));
      navigator.serviceWorker
        .register('realm.js', { scope: './' })
        .then(() => navigator.serviceWorker.ready)
        .then((registration) => registration.active.postMessage('read'))
        .catch((error) => done({ error: String(error) }));
    }),
  };
  for (const [realm, answer] of Object.entries(workers)) {
    record(`${realm}:answered`, Boolean(answer.error), answer.error);
    for (const [name, { lie, detail }] of Object.entries(answer.checks ?? {})) record(`${realm}:${name}`, lie, detail);
  }

  // Values, realm against realm: every realm must say what the window says.
  const windowValues = await valuesOf(window);
  const realms = {
    frame: await valuesOf(other),
    ...Object.fromEntries(Object.entries(workers).map(([realm, answer]) => [realm, answer.values ?? {}])),
  };
  for (const [key, value] of Object.entries(windowValues)) {
    for (const [realm, found] of Object.entries(realms)) {
      record(`${realm}-matches-window/${key}`, found[key] !== value, `${found[key]} against ${value}`);
    }
  }
  // The window's geometry as a windowed browser has it: the page inside the window, the window on
  // the screen, and media queries saying what the properties say.
  record(
    'value/window-within-screen',
    !(innerWidth <= outerWidth && innerHeight <= outerHeight && outerWidth <= screen.width && outerHeight <= screen.height),
    `inner ${innerWidth}x${innerHeight}, outer ${outerWidth}x${outerHeight}, screen ${screen.width}x${screen.height}`,
  );
  record(
    'value/media-matches-screen',
    !matchMedia(`(device-width: ${screen.width}px) and (device-height: ${screen.height}px)`).matches,
    `screen ${screen.width}x${screen.height}`,
  );
  record(
    'value/media-matches-viewport',
    !matchMedia(`(width: ${innerWidth}px) and (height: ${innerHeight}px)`).matches,
    `${innerWidth}x${innerHeight}`,
  );
  record(
    'value/media-matches-pixel-ratio',
    !matchMedia(`(resolution: ${devicePixelRatio}dppx)`).matches,
    `devicePixelRatio ${devicePixelRatio}`,
  );
  const screenOf = (w) =>
    `${w.screen.width}x${w.screen.height} avail ${w.screen.availWidth}x${w.screen.availHeight} depth ${w.screen.colorDepth} ratio ${w.devicePixelRatio}`;
  record('frame-matches-window/screen', screenOf(other) !== screenOf(window), `${screenOf(other)} against ${screenOf(window)}`);
  record('value/webdriver-off', navigator.webdriver !== false, String(navigator.webdriver));
  record(
    'frame-matches-window/webdriver',
    other.navigator.webdriver !== navigator.webdriver,
    `${other.navigator.webdriver} against ${navigator.webdriver}`,
  );
  for (const [realm, found] of [['window', windowValues], ...Object.entries(realms)])
    record(
      `value/not-headless-${realm}`,
      /headless/i.test(found.userAgent ?? '') || /headless/i.test(found.appVersion ?? '') || /headless/i.test(found.brands ?? ''),
      found.userAgent,
    );

  document.getElementById('result').textContent = JSON.stringify({ checks, values: { window: windowValues, ...realms } });
})().catch((error) => {
  document.getElementById('result').textContent = JSON.stringify({ error: String(error && error.stack ? error.stack : error) });
});
