// In-progress assistant text from ephemeral `run.delta` events, keyed by run
// id. It is a preview only: the stored assistant message replaces it.

import type { RunDelta } from "@/lib/contract/shapes";
import { createStore } from "./store";

export interface StreamingText {
  runId: string;
  conversationId: string;
  /** Offset of text[0] in the run's full output; > 0 when we joined mid-stream or skipped a gap. */
  start: number;
  text: string;
}

type Snapshot = Readonly<Record<string, StreamingText>>;

const streams = createStore<Snapshot>(Object.freeze({}));

// Runs whose stored message arrived (or that ended without one): late or
// replayed deltas must not bring the preview back.
const finished = new Set<string>();
const FINISHED_LIMIT = 500;

// The stored message reaches the screen through React Query, which notifies
// on its own schedule; keeping the preview a moment longer (the view hides it
// as soon as the stored message renders) avoids a frame with neither.
const REMOVE_DELAY_MS = 1500;
// A run that succeeded without an assistant message (e.g. only tool output)
// would otherwise leave its preview forever.
const ORPHAN_DELAY_MS = 10_000;

export function applyDelta(delta: RunDelta): void {
  if (finished.has(delta.runId) || typeof delta.delta !== "string" || typeof delta.offset !== "number") return;
  const snapshot = streams.get();
  const current = snapshot[delta.runId];
  let next: StreamingText;
  if (!current) {
    next = { runId: delta.runId, conversationId: delta.conversationId, start: delta.offset, text: delta.delta };
  } else {
    const end = current.start + current.text.length;
    if (delta.offset + delta.delta.length <= end) return; // already have it
    if (delta.offset <= end) {
      next = { ...current, text: current.text + delta.delta.slice(end - delta.offset) };
    } else {
      // A delta was dropped; showing text with a hole in it would be worse than restarting the preview here.
      next = { ...current, start: delta.offset, text: delta.delta };
    }
  }
  streams.set({ ...snapshot, [delta.runId]: next });
}

function markFinished(runId: string): void {
  finished.add(runId);
  if (finished.size > FINISHED_LIMIT) {
    const oldest = finished.values().next().value;
    if (oldest !== undefined) finished.delete(oldest);
  }
}

function removeLater(runId: string, delayMs: number): void {
  setTimeout(() => {
    streams.update((snapshot) => {
      if (!(runId in snapshot)) return snapshot;
      const rest = { ...snapshot };
      delete rest[runId];
      return rest;
    });
  }, delayMs);
}

/** The stored assistant message for this run exists now. */
export function finishStream(runId: string): void {
  markFinished(runId);
  if (runId in streams.get()) removeLater(runId, REMOVE_DELAY_MS);
}

/** The run reached a terminal status. */
export function endStream(runId: string, succeeded: boolean): void {
  if (!(runId in streams.get())) {
    if (!succeeded) markFinished(runId);
    return;
  }
  if (succeeded) {
    // Its message is normally on the way; only clean up if it never comes.
    removeLater(runId, ORPHAN_DELAY_MS);
  } else {
    markFinished(runId);
    removeLater(runId, 0);
  }
}

/** All previews, keyed by run id. */
export function getStreams(): Snapshot {
  return streams.get();
}

/** All previews; filter by conversation at the call site (the snapshot is shared and stable). */
export function useStreams(): Snapshot {
  return streams.useStore();
}
