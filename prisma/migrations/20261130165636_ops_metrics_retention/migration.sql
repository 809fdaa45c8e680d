-- AlterTable
ALTER TABLE "worker_heartbeat" ADD COLUMN     "metrics" JSONB;

-- CreateTable
CREATE TABLE "maintenance_job" (
    "name" TEXT NOT NULL,
    "nextRunAt" TIMESTAMPTZ(6) NOT NULL,
    "lastOwner" TEXT,
    "lastStartedAt" TIMESTAMPTZ(6),
    "lastFinishedAt" TIMESTAMPTZ(6),
    "lastResult" JSONB,

    CONSTRAINT "maintenance_job_pkey" PRIMARY KEY ("name")
);
