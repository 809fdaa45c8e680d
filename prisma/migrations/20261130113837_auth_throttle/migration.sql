-- CreateTable
CREATE TABLE "auth_throttle" (
    "key" TEXT NOT NULL,
    "hits" INTEGER NOT NULL,
    "windowStart" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "auth_throttle_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "auth_throttle_windowStart_idx" ON "auth_throttle"("windowStart");
