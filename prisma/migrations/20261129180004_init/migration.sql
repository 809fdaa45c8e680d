-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "user" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "eventSeq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "user_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "id" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "token" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "ipAddress" TEXT,
    "userAgent" TEXT,
    "userId" TEXT NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "accessToken" TEXT,
    "refreshToken" TEXT,
    "idToken" TEXT,
    "accessTokenExpiresAt" TIMESTAMPTZ(3),
    "refreshTokenExpiresAt" TIMESTAMPTZ(3),
    "scope" TEXT,
    "password" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verification" (
    "id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conversation" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "ownerId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "messageSeq" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "conversation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "message" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "conversationId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "content" TEXT NOT NULL,
    "taskId" TEXT,
    "runId" TEXT,
    "publicationId" TEXT,
    "meta" JSONB,
    "clientMessageId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'chat',
    "status" TEXT NOT NULL DEFAULT 'queued',
    "idempotencyKey" TEXT NOT NULL,
    "triggerMessageId" TEXT,
    "taskId" TEXT,
    "leaseOwner" TEXT,
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "modelRequests" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "originMessageId" TEXT,
    "originRunId" TEXT,
    "clientRequestId" TEXT,
    "title" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "driver" TEXT NOT NULL DEFAULT 'research',
    "remoteRef" TEXT,
    "driverData" JSONB,
    "options" JSONB,
    "status" TEXT NOT NULL DEFAULT 'submitted',
    "inputRequest" JSONB,
    "error" TEXT,
    "latestPublicationId" TEXT,
    "progressText" TEXT,
    "progressAt" TIMESTAMPTZ(3),
    "pendingUpdates" JSONB,
    "leaseOwner" TEXT,
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "nextRunAt" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "consecutiveErrors" INTEGER NOT NULL DEFAULT 0,
    "cancelRequestedAt" TIMESTAMPTZ(3),
    "cancelLeaseOwner" TEXT,
    "cancelLeaseToken" TEXT,
    "cancelLeaseExpiresAt" TIMESTAMPTZ(3),
    "nextCancelAt" TIMESTAMPTZ(3),
    "cancelAttempts" INTEGER NOT NULL DEFAULT 0,
    "lastCancelError" TEXT,
    "eventFingerprint" TEXT,
    "eventVersion" INTEGER NOT NULL DEFAULT 0,
    "notifiedVersion" INTEGER NOT NULL DEFAULT 0,
    "dispatchVersion" INTEGER,
    "dispatchAttempt" INTEGER NOT NULL DEFAULT 0,
    "dispatchEvent" JSONB,
    "notificationStatus" TEXT NOT NULL DEFAULT 'none',
    "notificationRunId" TEXT,
    "notificationError" TEXT,
    "notificationAttempts" INTEGER NOT NULL DEFAULT 0,
    "nextNotificationAt" TIMESTAMPTZ(3),
    "notifyLeaseOwner" TEXT,
    "notifyLeaseToken" TEXT,
    "notifyLeaseExpiresAt" TIMESTAMPTZ(3),
    "deliveryMode" TEXT NOT NULL DEFAULT 'none',
    "dueAt" TIMESTAMPTZ(3),
    "reportIfUnfinished" BOOLEAN NOT NULL DEFAULT false,
    "allowOvertime" BOOLEAN NOT NULL DEFAULT true,
    "budget" JSONB,
    "dueEvaluatedAt" TIMESTAMPTZ(3),
    "deliveryOutcome" TEXT,
    "modelRequests" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "completedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_step" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "taskId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "input" JSONB,
    "output" JSONB,
    "modelRequests" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_step_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "publication" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "taskId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "partial" BOOLEAN NOT NULL,
    "content" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "publication_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notice" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "taskId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "outcome" TEXT,
    "publicationId" TEXT,
    "text" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notice_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event" (
    "id" BIGSERIAL NOT NULL,
    "ownerId" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "conversationId" TEXT,
    "taskId" TEXT,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_heartbeat" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastBeatAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "loops" JSONB NOT NULL,
    "stoppedAt" TIMESTAMPTZ(3),

    CONSTRAINT "worker_heartbeat_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_key" ON "session"("token");

-- CreateIndex
CREATE INDEX "session_userId_idx" ON "session"("userId");

-- CreateIndex
CREATE INDEX "account_userId_idx" ON "account"("userId");

-- CreateIndex
CREATE INDEX "verification_identifier_idx" ON "verification"("identifier");

-- CreateIndex
CREATE INDEX "conversation_ownerId_updatedAt_idx" ON "conversation"("ownerId", "updatedAt");

-- CreateIndex
CREATE INDEX "message_runId_idx" ON "message"("runId");

-- CreateIndex
CREATE INDEX "message_taskId_idx" ON "message"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "message_conversationId_seq_key" ON "message"("conversationId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "message_ownerId_clientMessageId_key" ON "message"("ownerId", "clientMessageId");

-- CreateIndex
CREATE UNIQUE INDEX "run_idempotencyKey_key" ON "run"("idempotencyKey");

-- CreateIndex
CREATE INDEX "run_conversationId_createdAt_idx" ON "run"("conversationId", "createdAt");

-- CreateIndex
CREATE INDEX "run_ownerId_createdAt_idx" ON "run"("ownerId", "createdAt");

-- CreateIndex
CREATE INDEX "task_ownerId_updatedAt_idx" ON "task"("ownerId", "updatedAt");

-- CreateIndex
CREATE INDEX "task_conversationId_idx" ON "task"("conversationId");

-- CreateIndex
CREATE UNIQUE INDEX "task_ownerId_clientRequestId_key" ON "task"("ownerId", "clientRequestId");

-- CreateIndex
CREATE UNIQUE INDEX "task_driver_remoteRef_key" ON "task"("driver", "remoteRef");

-- CreateIndex
CREATE UNIQUE INDEX "task_step_taskId_index_key" ON "task_step"("taskId", "index");

-- CreateIndex
CREATE UNIQUE INDEX "publication_taskId_version_key" ON "publication"("taskId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "notice_taskId_key_key" ON "notice"("taskId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "event_ownerId_seq_key" ON "event"("ownerId", "seq");

-- AddForeignKey
ALTER TABLE "session" ADD CONSTRAINT "session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account" ADD CONSTRAINT "account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---- Hand-written (Prisma cannot express partial indexes) ---------------------
-- One index per loop's "due work" predicate (docs/architecture.md#tables). They are not in the
-- schema.prisma snapshot, so diffs never try to drop them. A claim query must
-- repeat its index's WHERE clause (literally implying it), or the planner will
-- not use the index.

-- run queue: chat/notification runs waiting for (or held by) a worker
CREATE INDEX run_due_idx ON "run" ("createdAt") WHERE status IN ('queued','running');

-- task execution loop
CREATE INDEX task_exec_due_idx ON "task" ("nextRunAt") WHERE status IN ('submitted','queued','running','updating') AND "cancelRequestedAt" IS NULL;

-- task cancel loop
CREATE INDEX task_cancel_due_idx ON "task" ("nextCancelAt") WHERE "cancelRequestedAt" IS NOT NULL AND status NOT IN ('succeeded','failed','cancelled');

-- notification outbox loop
CREATE INDEX task_notify_due_idx ON "task" ("nextNotificationAt") WHERE "notificationStatus" IN ('pending','claimed','dispatched','retry');

-- due-timer loop (at/by delivery contracts)
CREATE INDEX task_due_idx ON "task" ("dueAt") WHERE "dueAt" IS NOT NULL AND "dueEvaluatedAt" IS NULL;

-- event feed: the unique ("ownerId", "seq") index already serves "events after seq N".
