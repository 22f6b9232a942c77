import { createHash } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { listenOnLoopback } from './loopback-server';

/**
 * Local pages for browser-mode tests (127.0.0.1 only; nothing here loads from another host).
 * /spa (content rendered by script from /api/items), /form (select, input, button), /list?page=N
 * (three pages of five items with a.next), /more (a load-more button), /traffic (xhr, fetch,
 * image, script, stylesheet, font, websocket), /botd (BotD verdict in #result), /checks (headless
 * checks in #result), /hang (a script that never ends), /echo (request headers as JSON),
 * /canary-probe?target= (a page whose every kind of request aims at `target`), /redirect-to?url=,
 * /long (a tall page), /very-long (taller than a screenshot may be), /never-loads?ms= (a script that arrives after ms, 120 s by default), /captcha (a reCAPTCHA wall whose script URL is inert under the CSP),
 * /realms (what the window, a frame, dedicated workers from a blob and a URL, and a shared worker
 * each say about the browser, as JSON in #result).
 */
export interface BrowserFixtureSite {
  url: string;
  port: number;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Any page whose markup names another host gets this CSP, so a browser never tries to reach it. */
const SELF_ONLY = "default-src 'self' 'unsafe-inline' ws://127.0.0.1:* data: blob:";
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

const LIST_ITEMS = (n: number) => Array.from({ length: 5 }, (_, i) => `<li class="item">Item ${(n - 1) * 5 + i + 1}</li>`).join('');

const CHECKS_SCRIPT = `
(async () => {
  const gl = document.createElement('canvas').getContext('webgl');
  const dbg = gl && gl.getExtension('WEBGL_debug_renderer_info');
  const vendor = dbg ? gl.getParameter(dbg.UNMASKED_VENDOR_WEBGL) : null;
  const renderer = dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : null;
  let permissionsConsistent = true;
  try {
    const state = (await navigator.permissions.query({ name: 'notifications' })).state;
    permissionsConsistent = !(Notification.permission === 'denied' && state === 'prompt');
  } catch (e) { permissionsConsistent = false; }
  const ua = navigator.userAgent;
  const platform = navigator.platform;
  const uaOs = /Windows/.test(ua) ? 'win' : /Android/.test(ua) ? 'android' : /Mac OS X/.test(ua) ? 'mac' : /Linux/.test(ua) ? 'linux' : 'other';
  const platformOs = /^Win/.test(platform) ? 'win' : /arm|aarch/i.test(platform) && /Linux/.test(platform) ? 'android' : /^Mac/.test(platform) ? 'mac' : /Linux/.test(platform) ? 'linux' : 'other';
  const hints = navigator.userAgentData ? navigator.userAgentData.platform : null;
  const result = {
    webdriver: navigator.webdriver === true,
    headlessUa: /HeadlessChrome/.test(ua),
    plugins: navigator.plugins.length,
    mimeTypes: navigator.mimeTypes.length,
    chromeObject: typeof window.chrome === 'object' && window.chrome !== null,
    chromeApis: !!window.chrome && typeof window.chrome.loadTimes === 'function' && typeof window.chrome.csi === 'function' && typeof window.chrome.app === 'object',
    permissionsConsistent,
    webglVendor: vendor,
    webglRenderer: renderer,
    uaPlatformConsistent: uaOs === platformOs,
    clientHintsPlatform: hints,
    userAgent: ua,
    platform,
    languages: navigator.languages,
    language: navigator.language,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    locale: Intl.DateTimeFormat().resolvedOptions().locale,
    screen: [screen.width, screen.height],
    viewport: [innerWidth, innerHeight],
    outer: [outerWidth, outerHeight],
    touch: navigator.maxTouchPoints,
    hardwareConcurrency: navigator.hardwareConcurrency,
  };
  document.getElementById('result').textContent = JSON.stringify(result);
})();`;

// What one realm says about the browser: the values detection suites compare between realms, and
// whether the functions a fingerprint changes still read as native code and fail as native code.
const REALM_PROBE = `
function realmReading() {
  const nav = self.navigator;
  let vendor = null, renderer = null, native = null, wrongReceiver = null;
  try {
    const canvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(1, 1) : document.createElement('canvas');
    const gl = canvas.getContext('webgl');
    const dbg = gl && gl.getExtension('WEBGL_debug_renderer_info');
    if (dbg) { vendor = gl.getParameter(dbg.UNMASKED_VENDOR_WEBGL); renderer = gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL); }
    const fn = WebGLRenderingContext.prototype.getParameter;
    native = {
      getParameter: Function.prototype.toString.call(fn),
      toString: Function.prototype.toString.call(Function.prototype.toString),
      name: fn.name, length: fn.length, hasPrototype: 'prototype' in fn,
    };
    try { fn.call({}, 37445); } catch (e) { wrongReceiver = e.constructor.name + ': ' + e.message; }
  } catch (e) { vendor = 'error: ' + e; }
  return { userAgent: nav.userAgent, platform: nav.platform, language: nav.language, languages: nav.languages,
    hardwareConcurrency: nav.hardwareConcurrency, deviceMemory: nav.deviceMemory, webdriver: nav.webdriver,
    hints: nav.userAgentData ? nav.userAgentData.platform : null, vendor, renderer, native, wrongReceiver };
}`;

const REALMS_PAGE_SCRIPT = `
(async () => {
  const fromWorker = (worker) => new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); worker.onerror = (e) => resolve({ error: String(e.message) }); });
  const blob = URL.createObjectURL(new Blob([realmReading.toString() + ';postMessage(realmReading())'], { type: 'text/javascript' }));
  const frame = document.createElement('iframe');
  frame.src = '/realms-frame';
  const framed = new Promise((resolve) => { window.addEventListener('message', (e) => resolve(e.data)); });
  document.body.appendChild(frame);
  const shared = new SharedWorker('/realm-shared.js');
  const sharedReading = new Promise((resolve) => { shared.port.onmessage = (e) => resolve(e.data); });
  const result = {
    window: realmReading(),
    iframe: await framed,
    blobWorker: await fromWorker(new Worker(blob)),
    urlWorker: await fromWorker(new Worker('/realm-worker.js')),
    sharedWorker: await sharedReading,
  };
  document.getElementById('result').textContent = JSON.stringify(result);
})();`;

export async function startBrowserFixtureSite(): Promise<BrowserFixtureSite> {
  const botd = fs.readFileSync(path.join(require.resolve('@fingerprintjs/botd'), '..', 'botd.esm.js'), 'utf8');
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const html = (body: string, status = 200, extra: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': SELF_ONLY, ...extra }).end(body);
    switch (url.pathname) {
      case '/spa':
        return html(
          page(
            'SPA',
            '<div id="app">Loading…</div><script>fetch("/api/items").then(r=>r.json()).then(d=>{document.getElementById("app").innerHTML="<h1>Rendered by JS</h1><ul>"+d.items.map(i=>"<li class=\\"item\\">"+i+"</li>").join("")+"</ul>";});</script>',
          ),
        );
      case '/api/items':
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: ['alpha', 'beta', 'gamma'] }));
      case '/form':
        return html(
          page(
            'Form',
            '<form id="f"><select id="size" name="size"><option value="S">Small</option><option value="M" selected>Medium</option><option value="L">Large</option></select>' +
              '<input id="name" name="name"><button id="go" type="button">Go</button><button id="off" type="button" disabled>Off</button></form><div id="out"></div>' +
              '<script>document.getElementById("go").addEventListener("click",()=>{document.getElementById("out").textContent="size="+document.getElementById("size").value+" name="+document.getElementById("name").value;});' +
              'document.getElementById("name").addEventListener("keydown",e=>{if(e.key==="Enter")document.getElementById("out").textContent="enter:"+e.target.value;});</script>',
          ),
        );
      case '/list': {
        const n = Number(url.searchParams.get('page') ?? 1);
        const next = n < 3 ? `<a class="next" href="/list?page=${n + 1}">Next</a>` : '';
        return html(page(`List ${n}`, `<h1>Page ${n}</h1><ul>${LIST_ITEMS(n)}</ul>${next}`));
      }
      case '/more':
        return html(
          page(
            'Load more',
            '<ul id="l"><li class="item">Row 1</li></ul><button id="more" type="button">More</button>' +
              '<script>let n=1;document.getElementById("more").addEventListener("click",()=>{n+=1;const li=document.createElement("li");li.className="item";li.textContent="Row "+n;document.getElementById("l").appendChild(li);if(n>=4)document.getElementById("more").disabled=true;});</script>',
          ),
        );
      case '/traffic':
        return html(
          page(
            'Traffic',
            '<img src="/pixel.png"><div id="done"></div>' +
              '<script src="/app.js"></script>' +
              '<script>const x=new XMLHttpRequest();x.open("GET","/api/items?via=xhr");x.send();fetch("/api/items?via=fetch").then(r=>r.text());' +
              'const ws=new WebSocket("ws://"+location.host+"/socket");ws.onmessage=()=>{document.getElementById("done").textContent="ws";ws.close();};</script>',
            '<link rel="stylesheet" href="/style.css">',
          ),
        );
      case '/pixel.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      case '/app.js':
        return res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.appLoaded = true;');
      case '/style.css':
        return res.writeHead(200, { 'content-type': 'text/css' }).end('body { margin: 0 }');
      case '/realms':
        return html(page('Realms', `<div id="result">pending</div><script>${REALM_PROBE}${REALMS_PAGE_SCRIPT}</script>`));
      case '/realms-frame':
        return html(page('Frame', `<script>${REALM_PROBE}; parent.postMessage(realmReading(), '*');</script>`));
      case '/realm-worker.js':
        return res.writeHead(200, { 'content-type': 'text/javascript' }).end(`${REALM_PROBE}; postMessage(realmReading());`);
      case '/realm-shared.js':
        return res
          .writeHead(200, { 'content-type': 'text/javascript' })
          .end(`${REALM_PROBE}; onconnect = (e) => e.ports[0].postMessage(realmReading());`);
      case '/botd.js':
        return res.writeHead(200, { 'content-type': 'text/javascript' }).end(botd);
      case '/botd':
        return html(
          page(
            'BotD',
            '<div id="result">pending</div><script type="module">import { load } from "/botd.js"; load().then((b) => b.detect()).then((r) => { document.getElementById("result").textContent = JSON.stringify(r); }).catch((e) => { document.getElementById("result").textContent = JSON.stringify({ error: String(e) }); });</script>',
          ),
        );
      case '/checks':
        return html(page('Checks', `<div id="result">pending</div><script>${CHECKS_SCRIPT}</script>`));
      case '/hang':
        return html(page('Hang', '<p>Before</p><script>for(;;){}</script>'));
      case '/echo':
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ headers: req.headers }));
      case '/cookies':
        return html(
          page(
            'Cookies',
            `<pre id="c">${(req.headers.cookie ?? '').replace(/</g, '&lt;')}</pre><script>document.body.insertAdjacentHTML("beforeend","<pre id=js>"+document.cookie+"</pre>")</script>`,
          ),
        );
      case '/redirect-to':
        return res.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
      case '/loop':
        // A redirect loop: each hop points at the next, forever.
        return res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}` }).end();
      case '/canary-probe': {
        // Every way a page can make the browser connect somewhere, aimed at a host the guard refuses.
        const t = url.searchParams.get('target') ?? '';
        const wsTarget = t.replace(/^http/, 'ws');
        return res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            page(
              'Canary probe',
              `<img src="${t}/img"><iframe src="${t}/frame"></iframe><script src="${t}/script.js"></script>` +
                `<script>fetch("${t}/fetch").catch(()=>{});const x=new XMLHttpRequest();x.open("GET","${t}/xhr");x.send();` +
                `try{new WebSocket("${wsTarget}/ws")}catch(e){}navigator.sendBeacon("${t}/beacon","x");` +
                `new Worker(URL.createObjectURL(new Blob(['fetch("${t}/worker").catch(()=>{})'],{type:"text/javascript"})));` +
                `new EventSource("${t}/events");` +
                `navigator.serviceWorker.register("/sw.js?target=${encodeURIComponent(t)}").catch(()=>{});` +
                `const pc=new RTCPeerConnection({iceServers:[{urls:"stun:${new URL(t).hostname}:${new URL(t).port}"}]});pc.createDataChannel("x");pc.createOffer().then(o=>pc.setLocalDescription(o));` +
                `</script><p>probe page</p>`,
              `<link rel="stylesheet" href="${t}/style.css"><link rel="prefetch" href="${t}/prefetch">`,
            ),
          );
      }
      case '/sw.js': {
        // A service worker's own traffic bypasses page-level request interception; not the egress filter.
        const t = url.searchParams.get('target') ?? '';
        return res
          .writeHead(200, { 'content-type': 'text/javascript' })
          .end(
            `self.addEventListener("install",(e)=>e.waitUntil(fetch("${t}/sw").catch(()=>{})));self.addEventListener("activate",()=>fetch("${t}/sw-activate").catch(()=>{}));`,
          );
      }
      case '/slow-load': {
        // The load event waits for an image that arrives after `ms`.
        const ms = Number(url.searchParams.get('ms') ?? 3000);
        return html(page('Slow load', `<h1>Slow</h1><img src="/slow-image?ms=${ms}">`));
      }
      case '/never-loads':
        // The load event waits for a script (never skipped, unlike images in a light browser) that arrives after `ms`.
        return html(
          page('Never loads', `<h1>Waiting</h1><script src="/slow-script?ms=${Number(url.searchParams.get('ms') ?? 120_000)}"></script>`),
        );
      case '/slow-script':
        setTimeout(
          () => res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.late = true;'),
          Number(url.searchParams.get('ms') ?? 3000),
        ).unref();
        return;
      case '/slow-image':
        setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG), Number(url.searchParams.get('ms') ?? 3000)).unref();
        return;
      case '/noise':
        // Random pixels do not compress: a full-page screenshot of several MB.
        return html(
          page(
            'Noise',
            '<h1>Noise</h1><canvas id="c" width="1920" height="1000"></canvas><script>const c=document.getElementById("c").getContext("2d");const d=c.createImageData(1920,1000);crypto.getRandomValues(d.data.subarray(0,65536));for(let i=0;i<d.data.length;i+=65536)crypto.getRandomValues(d.data.subarray(i,Math.min(i+65536,d.data.length)));for(let i=3;i<d.data.length;i+=4)d.data[i]=255;c.putImageData(d,0,0);</script>',
          ),
        );
      case '/long':
        return html(page('Long', `<div style="height:3000px;background:linear-gradient(#fff,#0a0)">tall</div>`));
      case '/very-long':
        return html(page('Very long', `<div style="height:40000px;background:linear-gradient(#fff,#00a)">very tall</div>`));
      case '/captcha':
        return html(
          page(
            'Security check',
            '<p>Complete the check to continue.</p><div class="g-recaptcha" data-sitekey="x"></div><script src="https://www.google.com/recaptcha/api.js"></script>',
          ),
        );
      default:
        return html(page('Not found', '<h1>Not found</h1>'), 404);
    }
  });
  // A minimal WebSocket endpoint (RFC 6455 handshake, one text frame) for /traffic.
  server.on('upgrade', (req, socket: Socket) => {
    const key = req.headers['sec-websocket-key'];
    if (!key) return socket.destroy();
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.write(Buffer.from([0x81, 0x02, 0x68, 0x69]));
    socket.on('error', () => undefined);
    setTimeout(() => socket.destroy(), 2000).unref();
  });
  const listening = await listenOnLoopback(server);
  return { url: listening.url, port: listening.port, hits, close: listening.close };
}

/** Counts every TCP connection and UDP datagram (WebRTC/STUN) sent to it: a target that must never be reached. */
export async function startCanary(): Promise<{
  url: string;
  port: number;
  connections: () => number;
  datagrams: () => number;
  close(): Promise<void>;
}> {
  let connections = 0;
  let datagrams = 0;
  const server = http.createServer((_req, res) => res.end('canary'));
  server.on('connection', (s) => {
    connections += 1;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => (datagrams += 1));
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    datagrams: () => datagrams,
    close: async () => {
      udp.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
