-- AlterTable
ALTER TABLE "user" ADD COLUMN     "emailNotices" TEXT NOT NULL DEFAULT 'off',
ADD COLUMN     "language" TEXT,
ADD COLUMN     "presenceAt" TIMESTAMPTZ(6),
ADD COLUMN     "timeZone" TEXT;

-- AlterTable
ALTER TABLE "notice" ADD COLUMN     "emailAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "emailError" TEXT,
ADD COLUMN     "emailLeaseOwner" TEXT,
ADD COLUMN     "emailLeaseToken" TEXT,
ADD COLUMN     "emailLeaseUntil" TIMESTAMPTZ(6),
ADD COLUMN     "emailNextAt" TIMESTAMPTZ(6),
ADD COLUMN     "emailSentAt" TIMESTAMPTZ(6),
ADD COLUMN     "emailState" TEXT NOT NULL DEFAULT 'none',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(6);

-- Hand-written: the email loop's due work (lib/email/sql.ts) and its held leases (fair share).
CREATE INDEX notice_email_due_idx ON "notice" ("emailNextAt") WHERE "emailState" IN ('pending','sending','retry');
CREATE INDEX notice_email_lease_idx ON "notice" ("emailLeaseUntil") WHERE "emailLeaseToken" IS NOT NULL;
-- Dead letters for the operator's gauge (lib/metrics/collect.ts) without reading every sent row.
CREATE INDEX notice_email_dead_idx ON "notice" ("createdAt") WHERE "emailState" = 'dead_letter';
