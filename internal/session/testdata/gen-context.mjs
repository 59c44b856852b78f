// gen-context.mjs loads session files with OpenClaw 2026.9.6's own code,
// exactly as the oracle's `replay` loads them (parseSessionEntries, then
// migrateSessionEntries, then SessionManager.fromEntries(entries)
// .buildSessionContext()), and writes, for each FILE, OUTDIR/<name>.json:
// {"case", "context"} with the context messages, or {"case", "error"} with
// the exception OpenClaw throws. One process serves all files, so the
// chunks are imported once. Run it through gen.sh.
//
// Usage: node gen-context.mjs ORACLE_DIR OUTDIR FILE...
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [oracleDir, outDir, ...files] = process.argv.slice(2);
const dist = path.join(oracleDir, "node_modules", "openclaw-2026-9-6", "dist");

// Exports are minified; map each name to its alias from the chunk's last
// `export { … }` line, as the oracle does.
async function exported(chunk, name) {
  const file = path.join(dist, chunk);
  const line = fs.readFileSync(file, "utf8").trimEnd().split("\n").findLast((l) => /^export\s*\{/.test(l));
  const part = line.slice(line.indexOf("{") + 1, line.lastIndexOf("}")).split(",").map((p) => p.trim().split(/\s+as\s+/));
  const hit = part.find(([local]) => local === name);
  if (!hit) throw new Error(`${name} not exported from ${chunk}`);
  const mod = await import(pathToFileURL(file).href);
  return mod[hit[1] ?? hit[0]];
}

process.env.OPENCLAW_STATE_DIR ||= fs.mkdtempSync(path.join(os.tmpdir(), "oc-gen-context-"));
process.stdout.write = process.stderr.write.bind(process.stderr); // OpenClaw's logs stay off stdout
const parseSessionEntries = await exported("session-manager-codec-DW3_Rlj9.mjs", "parseSessionEntries");
const migrateSessionEntries = await exported("session-manager-codec-DW3_Rlj9.mjs", "migrateSessionEntries");
const SessionManager = await exported("session-manager-DjC09C_X.mjs", "SessionManager");

for (const file of files) {
  const name = path.basename(file, ".jsonl");
  let doc;
  try {
    const entries = parseSessionEntries(fs.readFileSync(file, "utf8"));
    migrateSessionEntries(entries);
    doc = { case: name, context: SessionManager.fromEntries(entries).buildSessionContext().messages };
  } catch (e) {
    doc = { case: name, error: String(e) };
  }
  fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(doc, null, 2) + "\n");
}
process.exit(0);
