-- AlterTable
ALTER TABLE "task" ADD COLUMN     "inputResponse" JSONB;

-- Hand-written: tasks waiting for input are polled too (slowly), so the execution
-- claim's predicate — and this partial index — include input_required.
DROP INDEX IF EXISTS task_exec_due_idx;
CREATE INDEX task_exec_due_idx ON "task" ("nextRunAt")
  WHERE status IN ('submitted', 'queued', 'running', 'updating', 'input_required') AND "cancelRequestedAt" IS NULL;
