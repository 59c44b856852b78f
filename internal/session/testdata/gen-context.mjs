// gen-context.mjs loads session files with OpenClaw 2026.9.6's own code,
// exactly as the oracle's `replay` loads them (parseSessionEntries, then
// migrateSessionEntries, then SessionManager.fromEntries(entries)
// .buildSessionContext()), and writes, for each FILE, OUTDIR/<name>.json:
// {"case", "context", "thinkingLevel", "model", "leafId", "branch",
// "customEntries"} (the context messages and level/model of
// buildSessionContext, the leaf and branch ids of the session manager, and
// the custom entries provider replay hooks see), or {"case", "error"} with
// the exception OpenClaw throws. Ids that migrations draw come from a
// counter (as the oracle's --deterministic does). One process serves all
// files, so the chunks are imported once. Run it through gen.sh.
//
// Usage: node gen-context.mjs ORACLE_DIR OUTDIR FILE...
import crypto from "node:crypto";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
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

let uuids = 0;
crypto.randomUUID = () => `00000000-0000-4000-8000-${String(++uuids).padStart(12, "0")}`;
syncBuiltinESMExports();
process.env.OPENCLAW_STATE_DIR ||= fs.mkdtempSync(path.join(os.tmpdir(), "oc-gen-context-"));
process.stdout.write = process.stderr.write.bind(process.stderr); // OpenClaw's logs stay off stdout
const parseSessionEntries = await exported("session-manager-codec-DW3_Rlj9.mjs", "parseSessionEntries");
const migrateSessionEntries = await exported("session-manager-codec-DW3_Rlj9.mjs", "migrateSessionEntries");
const SessionManager = await exported("session-manager-DjC09C_X.mjs", "SessionManager");

for (const file of files) {
  const name = path.basename(file, ".jsonl");
  let doc;
  uuids = 0;
  try {
    const entries = parseSessionEntries(fs.readFileSync(file, "utf8"));
    migrateSessionEntries(entries);
    const sm = SessionManager.fromEntries(entries);
    const ctx = sm.buildSessionContext();
    doc = {
      case: name,
      context: ctx.messages,
      thinkingLevel: ctx.thinkingLevel,
      model: ctx.model,
      leafId: sm.getLeafId(),
      branch: sm.getBranch().map((e) => e.id),
      // as createProviderReplaySessionState().getCustomEntries() reads them
      customEntries: sm.getEntries().flatMap((e) =>
        e?.type === "custom" && typeof e.customType === "string" && e.customType.trim()
          ? [{ customType: e.customType.trim(), data: e.data }]
          : []),
    };
  } catch (e) {
    doc = { case: name, error: String(e) };
  }
  fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(doc, null, 2) + "\n");
}
process.exit(0);
