import { spawn, type ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { pickFreePort } from "@/lib/util/free-port";
import { ROOT, waitFor } from "./helpers";

/**
 * A real LangGraph Platform API server (`langgraphjs dev`, in memory) on
 * loopback, serving the deterministic graph in tests/langgraph (assistant
 * `herald-test`). It takes about 5 s to start, so a test file starts one.
 */
export interface LangGraphPeer {
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

export async function startLangGraphPeer(): Promise<LangGraphPeer> {
  const port = await pickFreePort();
  const url = `http://127.0.0.1:${port}`;
  const cwd = path.join(ROOT, "tests/langgraph");
  // The dev server saves its in-memory state here and reads it back: every run starts empty.
  await rm(path.join(cwd, ".langgraph_api"), { recursive: true, force: true });
  let out = "";
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(ROOT, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs"),
      "dev",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--no-browser",
      "--no-reload",
    ],
    // Its own process group, so stop() ends the server and whatever it spawned, and nothing else.
    {
      cwd,
      env: { ...process.env, LANGGRAPH_CLI_NO_ANALYTICS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return;
    }
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, 5_000);
    await exited;
    clearTimeout(t);
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`langgraphjs dev exited:\n${out.slice(-2000)}`);
        return fetch(`${url}/ok`).then(
          (r) => r.ok,
          () => false,
        );
      },
      60_000,
      "langgraphjs dev ready",
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, output: () => out, stop };
}
