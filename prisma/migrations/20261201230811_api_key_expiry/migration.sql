-- AlterTable
ALTER TABLE "api_key" ADD COLUMN     "expiresAt" TIMESTAMPTZ(3);
