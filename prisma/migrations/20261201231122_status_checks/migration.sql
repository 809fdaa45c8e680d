-- Every closed set a column holds is enforced by the database (hand-written: Prisma does not model CHECK
-- constraints, so the drift check never sees them). Each list is the one definition in the code
-- (lib/contract/task.ts, lib/contract/shapes.ts, lib/contract/settings.ts, lib/notify/state.ts,
-- lib/email/state.ts), and lib/db/statuses.int.test.ts compares them. Validated in place: the writers only ever
-- wrote these values, and a row outside them should stop the migration rather than stay hidden.
ALTER TABLE "task" ADD CONSTRAINT "task_status_check"
  CHECK (status IN ('submitted', 'queued', 'running', 'updating', 'input_required', 'succeeded', 'failed', 'cancelled', 'deadline_exceeded'));
ALTER TABLE "task" ADD CONSTRAINT "task_notificationStatus_check"
  CHECK ("notificationStatus" IN ('none', 'pending', 'claimed', 'dispatched', 'retry', 'delivered', 'dead_letter'));
ALTER TABLE "task" ADD CONSTRAINT "task_deliveryMode_check"
  CHECK ("deliveryMode" IN ('none', 'at', 'by'));
ALTER TABLE "task" ADD CONSTRAINT "task_deliveryOutcome_check"
  CHECK ("deliveryOutcome" IN ('on_time', 'early', 'missed'));
ALTER TABLE "run" ADD CONSTRAINT "run_status_check"
  CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'));
ALTER TABLE "run" ADD CONSTRAINT "run_kind_check"
  CHECK (kind IN ('chat', 'notification'));
ALTER TABLE "message" ADD CONSTRAINT "message_kind_check"
  CHECK (kind IN ('user', 'assistant', 'progress', 'body', 'terminal', 'notice'));
ALTER TABLE "notice" ADD CONSTRAINT "notice_emailState_check"
  CHECK ("emailState" IN ('none', 'pending', 'sending', 'retry', 'sent', 'skipped', 'dead_letter'));
ALTER TABLE "notice" ADD CONSTRAINT "notice_outcome_check"
  CHECK (outcome IN ('done', 'on_time', 'early', 'missed', 'late', 'stopped', 'failed', 'cancelled', 'input'));
ALTER TABLE "user" ADD CONSTRAINT "user_emailNotices_check"
  CHECK ("emailNotices" IN ('off', 'timed', 'all'));

-- The cancel loop's partial index left out deadline_exceeded: every task stopped at its deadline (all of them
-- pass through the cancel fence) stayed in it for good. Its predicate is the claim's (lib/tasks/sql.ts cancelDue).
DROP INDEX IF EXISTS task_cancel_due_idx;
CREATE INDEX task_cancel_due_idx ON "task" ("nextCancelAt")
  WHERE "cancelRequestedAt" IS NOT NULL AND status NOT IN ('succeeded', 'failed', 'cancelled', 'deadline_exceeded');
