/**
 * The parts of a fingerprint profile that no Chromium override reaches, as one script run in every
 * realm of a stealthy page before its own code: the window of each frame (through
 * Page.addScriptToEvaluateOnNewDocument) and each dedicated and shared worker (evaluated while the
 * worker waits for the debugger, before its first line). Detection suites compare these realms with
 * each other, so the same values must come out of all of them.
 *
 * What it changes is as little as the profile needs (decision 0021):
 * - the WebGL GPU (`UNMASKED_VENDOR_WEBGL`/`UNMASKED_RENDERER_WEBGL`), in windows and workers:
 *   without a GPU Chromium renders with SwiftShader and says so, which every suite flags;
 * - in workers only, `navigator.platform` (the user agent override sets it for windows only) and
 *   `userAgent`/`appVersion` (a shared worker keeps the browser's own, "HeadlessChrome", though its
 *   client hints, languages and request headers follow the override), and `language` (which stays
 *   the browser's own while `languages` follows the override).
 * The replacements are ordinary functions (no Proxy, whose handler shows in stack traces), each
 * calling the original first so a wrong receiver or a missing argument throws exactly as the native
 * function does; `Function.prototype.toString` answers for them as it does for native code.
 */
export interface RealmIdentity {
  webgl: { vendor: string; renderer: string };
  /** navigator.platform as the page's user agent override states it. */
  platform: string;
  userAgent: string;
  /** navigator.language: the first of the profile's languages. */
  language: string;
}

const UNMASKED_VENDOR_WEBGL = 37445;
const UNMASKED_RENDERER_WEBGL = 37446;

/** The script's source, a self-contained statement: the same for windows and workers (it tells them apart itself). */
export function identityScript(identity: RealmIdentity): string {
  return `(${installIdentity.toString()})(${JSON.stringify(identity)}, ${UNMASKED_VENDOR_WEBGL}, ${UNMASKED_RENDERER_WEBGL});`;
}

// Runs in the browser, as its source text: it may use nothing from outside itself.
function installIdentity(identity: RealmIdentity, vendorParameter: number, rendererParameter: number): void {
  const scope = globalThis as unknown as Record<string, unknown>;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const functionProto = Function.prototype;
  const nativeToString = functionProto.toString;
  const disguised = new WeakMap<object, string>();
  const toString = {
    toString(this: unknown): string {
      const name = typeof this === 'function' ? disguised.get(this) : undefined;
      if (name !== undefined) return `function ${name}() { [native code] }`;
      return apply(nativeToString, this, []) as string;
    },
  }.toString;
  disguised.set(toString, 'toString');
  defineProperty(functionProto, 'toString', { ...describe(functionProto, 'toString'), value: toString });

  const replaceMethod = (proto: object, name: string, replacement: (...args: never[]) => unknown) => {
    const descriptor = describe(proto, name);
    if (!descriptor || typeof descriptor.value !== 'function') return;
    disguised.set(replacement, name);
    defineProperty(proto, name, { ...descriptor, value: replacement });
  };
  const replaceGetter = (proto: object, name: string, value: unknown) => {
    const descriptor = describe(proto, name);
    const original = descriptor?.get;
    if (!descriptor || !original) return;
    const get = describe(
      {
        get [name]() {
          apply(original, this, []);
          return value;
        },
      },
      name,
    )!.get!;
    disguised.set(get, `get ${name}`);
    defineProperty(proto, name, { ...descriptor, get });
  };

  for (const contextName of ['WebGLRenderingContext', 'WebGL2RenderingContext']) {
    const context = scope[contextName] as { prototype: { getParameter: (parameter: number) => unknown } } | undefined;
    if (!context) continue;
    const original = context.prototype.getParameter;
    replaceMethod(
      context.prototype,
      'getParameter',
      {
        getParameter(this: unknown, parameter: number): unknown {
          // eslint-disable-next-line prefer-rest-params
          const value = apply(original, this, arguments);
          // Only where the browser answered: a null (the parameter refused) stays null.
          if (value === null) return value;
          if (parameter === vendorParameter) return identity.webgl.vendor;
          if (parameter === rendererParameter) return identity.webgl.renderer;
          return value;
        },
      }.getParameter,
    );
  }

  const workerNavigator = scope.WorkerNavigator as { prototype: object } | undefined;
  if (workerNavigator && typeof scope.WorkerGlobalScope === 'function') {
    replaceGetter(workerNavigator.prototype, 'platform', identity.platform);
    replaceGetter(workerNavigator.prototype, 'userAgent', identity.userAgent);
    replaceGetter(workerNavigator.prototype, 'language', identity.language);
    replaceGetter(workerNavigator.prototype, 'appVersion', identity.userAgent.replace(/^Mozilla\//, ''));
  }
}
