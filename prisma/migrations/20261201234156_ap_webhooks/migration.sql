-- CreateTable
CREATE TABLE "ap_webhook" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "ownerId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "threadId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'waiting',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAt" TIMESTAMPTZ(6),
    "leaseOwner" TEXT,
    "leaseToken" TEXT,
    "leaseUntil" TIMESTAMPTZ(6),
    "lastError" TEXT,
    "lastStatus" INTEGER,
    "deliveredAt" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ap_webhook_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ap_webhook_runId_key" ON "ap_webhook"("runId");

-- CreateIndex
CREATE INDEX "ap_webhook_state_nextAt_idx" ON "ap_webhook"("state", "nextAt");

-- CreateIndex
CREATE INDEX "ap_webhook_ownerId_createdAt_idx" ON "ap_webhook"("ownerId", "createdAt");

-- AddForeignKey
ALTER TABLE "ap_webhook" ADD CONSTRAINT "ap_webhook_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: the outbox states (lib/ap/webhook-sql.ts).
ALTER TABLE "ap_webhook" ADD CONSTRAINT "ap_webhook_state_check" CHECK ("state" IN ('waiting', 'pending', 'delivered', 'dead'));
