// The real web process (scripts/server.ts, Next on the production build) for
// bench/fanout.ts --next, with one addition for measuring: on the IPC message
// "memory" it runs a full GC (--expose-gc) and answers process.memoryUsage().
process.on("message", (m) => {
  if (m !== "memory") return;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) gc?.();
  process.send?.({ memory: process.memoryUsage() });
});
export {};
await import("../scripts/server");
