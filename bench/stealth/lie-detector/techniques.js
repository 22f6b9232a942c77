// The public lie-detection techniques, shared by the page (lies.js) and the worker realms
// (realm.js): loaded with <script> in the window and importScripts in workers, so every realm is
// judged by the same code. A native function of an unmodified Chromium passes every check.
self.lieTechniques = (() => {
  const attempt = (work) => {
    try {
      return { value: work(), error: null };
    } catch (error) {
      return { value: undefined, error };
    }
  };
  const errorShape = (error) => (error ? `${error.constructor?.name}: ${error.message}` : 'no error');
  const nativeText = (name) =>
    new RegExp(`^function ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\(\\) \\{\\s*\\[native code\\]\\s*\\}$`);

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
      // Frames with a source position that is not one of this detector's files: code put between the caller and the native function.
      return lines
        .slice(0, mine < 0 ? lines.length : mine)
        .filter((line) => /:\d+:\d+\)?\s*$/.test(line) && !line.includes('/lie-detector/'));
    }
  }

  /**
   * Every technique on one function: `mine` is the realm's, `theirs` the same function from a fresh
   * realm where there is one (a frame; workers have none).
   */
  function checkFunction(record, label, mine, name, theirs) {
    if (typeof mine !== 'function') {
      record(`exists/${label}`, true, `${typeof mine}`);
      return;
    }
    const text = attempt(() => Function.prototype.toString.call(mine));
    record(`toString/${label}`, !nativeText(name).test(text.value ?? ''), text.value ?? errorShape(text.error));
    // toString's own toString, through the function's own toString property: a patched toString answering for itself shows here.
    const ownText = attempt(() => mine.toString.toString());
    record(`toString-of-toString/${label}`, !nativeText('toString').test(ownText.value ?? ''), ownText.value ?? errorShape(ownText.error));
    const keys = Reflect.ownKeys(mine).map(String).sort().join(',');
    record(`own-keys/${label}`, keys !== 'length,name', keys);
    record(`prototype/${label}`, 'prototype' in mine, 'has a prototype');
    const made = attempt(() => new mine());
    record(`new/${label}`, !(made.error instanceof TypeError) || !/is not a constructor/.test(made.error.message), errorShape(made.error));
    record(`name/${label}`, mine.name !== name, mine.name);
    record(
      `prototype-chain/${label}`,
      Object.getPrototypeOf(mine) !== Function.prototype,
      "its prototype is not the realm's Function.prototype",
    );
    const frames = lieProbe(() => mine.call(Object.create(null)));
    record(`stack/${label}`, frames !== null && frames.length > 0, (frames ?? []).join(' | '));
    if (typeof theirs === 'function') {
      const otherToString = theirs.constructor.prototype.toString;
      const otherText = attempt(() => otherToString.call(mine));
      record(
        `toString-cross-realm/${label}`,
        !nativeText(name).test(otherText.value ?? ''),
        otherText.value ?? errorShape(otherText.error),
      );
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
  }

  /** A getter on an interface's prototype: the function checks, and whether it stayed where a native one lives. */
  function checkGetter(record, scope, iface, prop, other, instance) {
    const label = `${iface}.${prop}`;
    const mine = Object.getOwnPropertyDescriptor(scope[iface].prototype, prop);
    const theirs = other && Object.getOwnPropertyDescriptor(other[iface].prototype, prop);
    checkFunction(record, label, mine?.get, `get ${prop}`, theirs?.get);
    const shape = (d) => (d ? `${d.configurable}/${d.enumerable}/${typeof d.get}/${typeof d.set}/${'value' in d}` : 'none');
    // Without a fresh realm, the shape every WebIDL attribute has.
    const expected = other ? shape(theirs) : 'true/true/function/undefined/false';
    record(`descriptor/${label}`, shape(mine) !== expected, `${shape(mine)} against ${expected}`);
    if (instance)
      record(`own-instance/${label}`, Object.getOwnPropertyDescriptor(instance, prop) !== undefined, 'an own property of the instance');
  }

  // What fingerprinters compare between realms. The high-entropy client hints are asked for too.
  async function valuesOf(scope) {
    const nav = scope.navigator;
    const gpu = () => {
      try {
        const canvas = scope.document ? scope.document.createElement('canvas') : new scope.OffscreenCanvas(1, 1);
        const gl = canvas.getContext('webgl');
        const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
        return info ? `${gl.getParameter(info.UNMASKED_VENDOR_WEBGL)} / ${gl.getParameter(info.UNMASKED_RENDERER_WEBGL)}` : 'none';
      } catch (error) {
        return `none (${error})`;
      }
    };
    const data = nav.userAgentData;
    const high = data
      ? await data
          .getHighEntropyValues(['architecture', 'bitness', 'fullVersionList', 'model', 'platformVersion', 'wow64'])
          .catch((error) => ({ error: String(error) }))
      : null;
    const brands = (list) => (list ?? []).map((b) => `${b.brand} ${b.version}`).join(', ');
    return {
      userAgent: nav.userAgent,
      appVersion: nav.appVersion,
      platform: nav.platform,
      language: nav.language,
      languages: nav.languages.join(','),
      hardwareConcurrency: nav.hardwareConcurrency,
      deviceMemory: nav.deviceMemory,
      gpu: gpu(),
      brands: data ? brands(data.brands) : 'none',
      clientHintsPlatform: data ? `${data.platform} mobile=${data.mobile}` : 'none',
      fullVersionList: high ? brands(high.fullVersionList) : 'none',
      platformVersion: high ? `${high.platformVersion} ${high.architecture} ${high.bitness} ${high.model} ${high.wow64}` : 'none',
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      locale: Intl.DateTimeFormat().resolvedOptions().locale,
    };
  }

  /** Functions and getters of a worker's own realm, judged inside it. */
  async function workerReading(scope) {
    const checks = {};
    const record = (name, lie, detail) => {
      checks[name] = { lie: Boolean(lie), detail: lie ? String(detail ?? '').slice(0, 200) : '' };
    };
    const methods = [
      ['Function.prototype.toString', scope.Function.prototype.toString, 'toString'],
      ['WebGLRenderingContext.getParameter', scope.WebGLRenderingContext?.prototype.getParameter, 'getParameter'],
      ['WebGL2RenderingContext.getParameter', scope.WebGL2RenderingContext?.prototype.getParameter, 'getParameter'],
      ['OffscreenCanvas.getContext', scope.OffscreenCanvas?.prototype.getContext, 'getContext'],
      ['Date.getTimezoneOffset', scope.Date.prototype.getTimezoneOffset, 'getTimezoneOffset'],
      ['Intl.DateTimeFormat.resolvedOptions', scope.Intl.DateTimeFormat.prototype.resolvedOptions, 'resolvedOptions'],
      ['Permissions.query', scope.Permissions?.prototype.query, 'query'],
    ];
    for (const [label, fn, name] of methods) checkFunction(record, label, fn, name);
    for (const prop of [
      'userAgent',
      'appVersion',
      'platform',
      'language',
      'languages',
      'hardwareConcurrency',
      'deviceMemory',
      'userAgentData',
    ])
      checkGetter(record, scope, 'WorkerNavigator', prop, null, scope.navigator);
    return { checks, values: await valuesOf(scope) };
  }

  return { attempt, errorShape, checkFunction, checkGetter, valuesOf, workerReading };
})();
