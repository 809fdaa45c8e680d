-- CreateIndex
CREATE INDEX "message_ownerId_createdAt_idx" ON "message"("ownerId", "createdAt");

-- CreateIndex
CREATE INDEX "task_ownerId_createdAt_idx" ON "task"("ownerId", "createdAt");

-- Hand-written: quota counts and fair claims read only live rows of one account.
CREATE INDEX task_owner_active_idx ON "task" ("ownerId")
  WHERE status IN ('submitted','queued','running','updating','input_required');
CREATE INDEX run_owner_active_idx ON "run" ("ownerId") WHERE status IN ('queued','running');
-- Held leases per account (fair share of slots): only rows leased right now.
CREATE INDEX task_exec_lease_idx ON "task" ("leaseExpiresAt") WHERE "leaseToken" IS NOT NULL;
CREATE INDEX task_cancel_lease_idx ON "task" ("cancelLeaseExpiresAt") WHERE "cancelLeaseToken" IS NOT NULL;
CREATE INDEX task_notify_lease_idx ON "task" ("notifyLeaseExpiresAt") WHERE "notifyLeaseToken" IS NOT NULL;
