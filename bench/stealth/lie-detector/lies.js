// A lie detector of our own (issue 68): the public techniques lie-detecting fingerprinters apply to
// the functions and values a stealth browser changes (and to a sample it does not), each check
// reported as a lie or not. A native function of an unmodified Chromium passes every check; a value
// reads the same in the window, a fresh frame and a worker. Writes {checks: {name: {lie, detail}}}
// into #result.
(async () => {
  const checks = {};
  const record = (name, lie, detail) => {
    checks[name] = { lie: Boolean(lie), detail: lie ? String(detail ?? '').slice(0, 200) : '' };
  };
  const attempt = (work) => {
    try {
      return { value: work(), error: null };
    } catch (error) {
      return { value: undefined, error };
    }
  };

  // A fresh realm: an about:blank frame made now, whose built-ins are the browser's own unless the
  // browser's changes reach it too (then its answers must still agree with the window's).
  const frame = document.createElement('iframe');
  frame.style.display = 'none';
  document.body.appendChild(frame);
  const other = frame.contentWindow;

  const nativeText = (name) =>
    new RegExp(`^function ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\(\\) \\{\\s*\\[native code\\]\\s*\\}$`);

  // [target label, window's function, the fresh realm's function, name it must have]
  const methods = [
    ['Function.prototype.toString', (w) => w.Function.prototype.toString, 'toString'],
    ['WebGLRenderingContext.getParameter', (w) => w.WebGLRenderingContext.prototype.getParameter, 'getParameter'],
    ['WebGL2RenderingContext.getParameter', (w) => w.WebGL2RenderingContext.prototype.getParameter, 'getParameter'],
    ['HTMLCanvasElement.toDataURL', (w) => w.HTMLCanvasElement.prototype.toDataURL, 'toDataURL'],
    ['CanvasRenderingContext2D.getImageData', (w) => w.CanvasRenderingContext2D.prototype.getImageData, 'getImageData'],
    ['AnalyserNode.getFloatFrequencyData', (w) => w.AnalyserNode.prototype.getFloatFrequencyData, 'getFloatFrequencyData'],
    ['AudioBuffer.getChannelData', (w) => w.AudioBuffer.prototype.getChannelData, 'getChannelData'],
    ['Date.getTimezoneOffset', (w) => w.Date.prototype.getTimezoneOffset, 'getTimezoneOffset'],
    ['Intl.DateTimeFormat.resolvedOptions', (w) => w.Intl.DateTimeFormat.prototype.resolvedOptions, 'resolvedOptions'],
    ['Permissions.query', (w) => w.Permissions.prototype.query, 'query'],
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
    ['Navigator', 'permissions'],
    ['Screen', 'width'],
    ['Screen', 'height'],
    ['Screen', 'colorDepth'],
    ['Screen', 'availWidth'],
  ];
  const functions = [
    ...methods.map(([label, of, name]) => ({ label, mine: attempt(() => of(window)).value, theirs: attempt(() => of(other)).value, name })),
    ...getters.map(([iface, prop]) => ({
      label: `${iface}.${prop}`,
      mine: Object.getOwnPropertyDescriptor(window[iface].prototype, prop)?.get,
      theirs: Object.getOwnPropertyDescriptor(other[iface].prototype, prop)?.get,
      name: `get ${prop}`,
      holder: [iface, prop],
    })),
  ];

  const errorShape = (error) => (error ? `${error.constructor?.name}: ${error.message}` : 'no error');
  // The frames between a call and its caller when it throws: a native function adds none with a source position.
  function lieProbe(work) {
    try {
      work();
      return null;
    } catch (error) {
      const lines = String(error.stack ?? '')
        .split('\n')
        .slice(1);
      const mine = lines.findIndex((line) => line.includes('lieProbe'));
      // Frames with a source position that is not this file's own: code put between the caller and the native function.
      return lines
        .slice(0, mine < 0 ? lines.length : mine)
        .filter((line) => /:\d+:\d+\)?\s*$/.test(line) && !line.includes('/lie-detector/lies.js'));
    }
  }

  for (const { label, mine, theirs, name, holder } of functions) {
    if (typeof mine !== 'function') {
      record(`exists/${label}`, true, `${typeof mine}`);
      continue;
    }
    const text = attempt(() => Function.prototype.toString.call(mine));
    record(`toString/${label}`, !nativeText(name).test(text.value ?? ''), text.value ?? errorShape(text.error));
    const otherText = attempt(() => other.Function.prototype.toString.call(mine));
    record(`toString-cross-realm/${label}`, !nativeText(name).test(otherText.value ?? ''), otherText.value ?? errorShape(otherText.error));
    const keys = Reflect.ownKeys(mine).map(String).sort().join(',');
    record(`own-keys/${label}`, keys !== 'length,name', keys);
    record(`prototype/${label}`, 'prototype' in mine, 'has a prototype');
    const made = attempt(() => new mine());
    record(`new/${label}`, !(made.error instanceof TypeError) || !/is not a constructor/.test(made.error.message), errorShape(made.error));
    record(`name/${label}`, mine.name !== name, mine.name);
    if (typeof theirs === 'function') {
      record(`length/${label}`, mine.length !== theirs.length, `${mine.length} against ${theirs.length}`);
      const receiver = Object.create(null);
      const mineError = attempt(() => mine.call(receiver)).error;
      const theirError = attempt(() => theirs.call(receiver)).error;
      record(
        `receiver-error/${label}`,
        errorShape(mineError) !== errorShape(theirError),
        `${errorShape(mineError)} against ${errorShape(theirError)}`,
      );
    }
    const frames = lieProbe(() => mine.call(Object.create(null)));
    record(`stack/${label}`, frames !== null && frames.length > 0, (frames ?? []).join(' | '));
    if (holder) {
      const [iface, prop] = holder;
      const shape = (d) => (d ? `${d.configurable}/${d.enumerable}/${typeof d.get}/${typeof d.set}/${'value' in d}` : 'none');
      const mineDescriptor = Object.getOwnPropertyDescriptor(window[iface].prototype, prop);
      const theirDescriptor = Object.getOwnPropertyDescriptor(other[iface].prototype, prop);
      record(
        `descriptor/${label}`,
        shape(mineDescriptor) !== shape(theirDescriptor),
        `${shape(mineDescriptor)} against ${shape(theirDescriptor)}`,
      );
      const instance = iface === 'Navigator' ? navigator : screen;
      record(`own-instance/${label}`, Object.getOwnPropertyDescriptor(instance, prop) !== undefined, 'an own property of the instance');
      const order = (w) => Object.getOwnPropertyNames(w[iface].prototype).join(',');
      record(
        `key-order/${iface}`,
        order(window) !== order(other),
        'the prototype lists its properties in another order than a fresh realm',
      );
    }
  }

  // Values, realm against realm: the window, the fresh frame, a dedicated worker.
  const gpu = (w) => {
    const gl = w.document.createElement('canvas').getContext('webgl');
    const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
    return info ? `${gl.getParameter(info.UNMASKED_VENDOR_WEBGL)} / ${gl.getParameter(info.UNMASKED_RENDERER_WEBGL)}` : 'none';
  };
  const values = (w) => ({
    userAgent: w.navigator.userAgent,
    appVersion: w.navigator.appVersion,
    platform: w.navigator.platform,
    language: w.navigator.language,
    languages: w.navigator.languages.join(','),
    hardwareConcurrency: w.navigator.hardwareConcurrency,
    deviceMemory: w.navigator.deviceMemory,
    webdriver: w.navigator.webdriver,
    gpu: gpu(w),
  });
  const windowValues = values(window);
  const frameValues = values(other);
  const workerSource = `
    const gpu = () => {
      try {
        const gl = new OffscreenCanvas(1, 1).getContext('webgl');
        const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
        return info ? gl.getParameter(info.UNMASKED_VENDOR_WEBGL) + ' / ' + gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : 'none';
      } catch (e) { return 'none'; }
    };
    postMessage({
      userAgent: navigator.userAgent, appVersion: navigator.appVersion, platform: navigator.platform,
      language: navigator.language, languages: navigator.languages.join(','),
      hardwareConcurrency: navigator.hardwareConcurrency, deviceMemory: navigator.deviceMemory,
      webdriver: navigator.webdriver, gpu: gpu(),
    });`;
  const workerValues = await new Promise((resolve) => {
    try {
      const worker = new Worker(URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' })));
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => resolve({ error: String(event.message) });
      setTimeout(() => resolve({ error: 'the worker did not answer' }), 5000);
    } catch (error) {
      resolve({ error: String(error) });
    }
  });
  for (const [key, value] of Object.entries(windowValues)) {
    record(`frame-matches-window/${key}`, frameValues[key] !== value, `${frameValues[key]} against ${value}`);
    if (key === 'webdriver') continue; // not in WorkerNavigator
    record(
      `worker-matches-window/${key}`,
      workerValues.error || workerValues[key] !== value,
      workerValues.error ?? `${workerValues[key]} against ${value}`,
    );
  }
  record('value/webdriver-off', navigator.webdriver !== false, String(navigator.webdriver));
  for (const [realm, found] of [
    ['window', windowValues],
    ['frame', frameValues],
    ['worker', workerValues],
  ])
    record(
      `value/not-headless-${realm}`,
      /headless/i.test(found.userAgent ?? '') || /headless/i.test(found.appVersion ?? ''),
      found.userAgent,
    );

  document.getElementById('result').textContent = JSON.stringify({ checks });
})().catch((error) => {
  document.getElementById('result').textContent = JSON.stringify({ error: String(error && error.stack ? error.stack : error) });
});
