// Starts a real `mnemon serve` on a loopback port over a fresh SQLite file,
// for the tests. MNEMON_BIN names the binary (the Go test that runs these
// sets it); without it the binary is built with `go build`.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

export async function startServer(extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), "mnemon-ts-"));
  let bin = process.env.MNEMON_BIN;
  if (!bin) {
    bin = join(dir, "mnemon");
    execFileSync("go", ["build", "-o", bin, "./cmd/mnemon"], { cwd: repo, stdio: "inherit" });
  }
  const db = join(dir, "mnemon.db");
  const child = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--db", db, ...extraArgs], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const log = [];
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stderr });
    const timer = setTimeout(() => reject(new Error(`mnemon serve did not start:\n${log.join("\n")}`)), 60_000);
    lines.on("line", (line) => {
      log.push(line);
      try {
        const rec = JSON.parse(line);
        if (rec.msg === "listening") {
          clearTimeout(timer);
          resolve(rec.addr);
        }
      } catch {
        // not a log record: keep it for the error message
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`mnemon serve exited with ${code}:\n${log.join("\n")}`));
    });
  });
  return {
    url,
    bin,
    db,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
