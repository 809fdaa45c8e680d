-- DropIndex
DROP INDEX "task_source_ownerId_idx";

-- CreateIndex
CREATE INDEX "task_source_ownerId_fetchedAt_idx" ON "task_source"("ownerId", "fetchedAt");
