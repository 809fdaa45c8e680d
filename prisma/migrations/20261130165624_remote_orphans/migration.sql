-- CreateTable
CREATE TABLE "remote_orphan" (
    "driver" TEXT NOT NULL,
    "remoteRef" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cancelledAt" TIMESTAMPTZ(6),
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "remote_orphan_pkey" PRIMARY KEY ("driver","remoteRef")
);
