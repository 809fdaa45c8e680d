-- Hand-written: the execution claim ranks a window of due tasks in arrival order
-- (lib/limits/fair-claim.ts), so it needs an index in that order under the same
-- predicate as task_exec_due_idx, where the window's scan can stop early.
CREATE INDEX task_exec_order_idx ON "task" ("createdAt", id)
  WHERE status IN ('submitted', 'queued', 'running', 'updating', 'input_required') AND "cancelRequestedAt" IS NULL;
