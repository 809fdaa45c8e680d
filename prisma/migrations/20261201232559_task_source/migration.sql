-- CreateTable
CREATE TABLE "task_source" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "taskId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "finalUrl" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "site" TEXT NOT NULL,
    "fetchedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "excerpt" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "task_source_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "task_source_ownerId_idx" ON "task_source"("ownerId");

-- CreateIndex
CREATE UNIQUE INDEX "task_source_taskId_url_key" ON "task_source"("taskId", "url");

-- CreateIndex
CREATE UNIQUE INDEX "task_source_taskId_n_key" ON "task_source"("taskId", "n");

-- AddForeignKey
ALTER TABLE "task_source" ADD CONSTRAINT "task_source_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_source" ADD CONSTRAINT "task_source_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: what one source may hold (lib/tasks/sources.ts bounds it before it writes).
ALTER TABLE "task_source" ADD CONSTRAINT "task_source_excerpt_check" CHECK (char_length("excerpt") <= 20000);
ALTER TABLE "task_source" ADD CONSTRAINT "task_source_n_check" CHECK ("n" >= 1);
ALTER TABLE "task_source" ADD CONSTRAINT "task_source_url_check" CHECK (char_length("url") <= 4096 AND char_length("finalUrl") <= 4096);
