import type { PublicTask, TaskStatus } from "./tasks";

/** A public task for client unit tests: `second` seconds after a fixed instant. */
export function taskFixture(
  id: string,
  status: TaskStatus,
  second: number,
  extra: Partial<PublicTask> = {},
): PublicTask {
  const t0 = Date.parse("2026-11-01T10:00:00.000Z");
  return {
    id,
    conversationId: "c1",
    title: `Task ${id}`,
    driver: "research",
    status,
    createdAt: new Date(t0).toISOString(),
    updatedAt: new Date(t0 + second * 1000).toISOString(),
    startedAt: null,
    completedAt: null,
    progress: null,
    steps: null,
    delivery: {
      mode: "none",
      dueAt: null,
      reportIfUnfinished: false,
      outcome: null,
      allowOvertime: true,
      budget: null,
    },
    spent: { modelRequests: 0, inputTokens: 0, outputTokens: 0, costUsd: null, searches: 0, pagesRead: 0 },
    sourcesNote: null,
    waitingForProvider: null,
    remote: null,
    cancelRequested: false,
    cancel: { attempts: 0, lastError: null },
    notification: { status: "none", attempts: 0, error: null },
    error: null,
    errorCode: null,
    inputRequest: null,
    latestPublicationId: null,
    ...extra,
  };
}
