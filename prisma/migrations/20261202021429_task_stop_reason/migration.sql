-- AlterTable
ALTER TABLE "task" ADD COLUMN     "stopReason" TEXT;

-- The stop reason used to live in `error` as a sentence read back by prefix. Rows stopped that way keep their
-- sentence and get the reason. The set is STOP_REASONS in lib/tasks/columns.ts (lib/db/statuses.int.test.ts compares).
UPDATE "task" SET "stopReason" = 'at_deadline' WHERE starts_with(error, 'stopped at the deadline');
UPDATE "task" SET "stopReason" = 'overtime_spent' WHERE starts_with(error, 'stopped after the deadline: overtime budget spent');
ALTER TABLE "task" ADD CONSTRAINT "task_stopReason_check" CHECK ("stopReason" IN ('at_deadline', 'overtime_spent'));
