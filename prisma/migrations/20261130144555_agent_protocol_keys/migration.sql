-- AlterTable
ALTER TABLE "conversation" ADD COLUMN     "apMetadata" JSONB;

-- CreateTable
CREATE TABLE "api_key" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "ownerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),

    CONSTRAINT "api_key_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ap_run" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "assistantId" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "metadata" JSONB,
    "multitaskStrategy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ap_run_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_key_hash_key" ON "api_key"("hash");

-- CreateIndex
CREATE INDEX "api_key_ownerId_idx" ON "api_key"("ownerId");

-- CreateIndex
CREATE INDEX "ap_run_conversationId_createdAt_idx" ON "ap_run"("conversationId", "createdAt");
