/** One SSE frame's fields (`id`, `event`, `data`; comments dropped). */
export type SseFrame = { id?: string; event?: string; data?: string };

/**
 * Splits what a feed sent so far into complete frames and the unfinished rest,
 * which the caller keeps for the next chunk. Heartbeats (comment-only frames)
 * are dropped.
 */
export function takeSseFrames(buffer: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  let rest = buffer;
  let i;
  while ((i = rest.indexOf("\n\n")) >= 0) {
    const block = rest.slice(0, i);
    rest = rest.slice(i + 2);
    const f: SseFrame = {};
    for (const line of block.split("\n")) {
      const m = /^(id|event|data): ?(.*)$/.exec(line);
      if (m) f[m[1] as keyof SseFrame] = m[2];
    }
    if (f.event || f.data) frames.push(f);
  }
  return { frames, rest };
}
