-- AlterTable
ALTER TABLE "task" ADD COLUMN     "stepsAt" TIMESTAMPTZ(3),
ADD COLUMN     "stepsDone" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "stepsTotal" INTEGER;

-- CreateTable
CREATE TABLE "report_share" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "ownerId" TEXT NOT NULL,
    "publicationId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "report_share_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "report_share_hash_key" ON "report_share"("hash");

-- CreateIndex
CREATE INDEX "report_share_ownerId_createdAt_idx" ON "report_share"("ownerId", "createdAt");

-- CreateIndex
CREATE INDEX "report_share_publicationId_idx" ON "report_share"("publicationId");
