-- AlterTable
ALTER TABLE "task" ADD COLUMN     "cancelAnsweredInChat" BOOLEAN NOT NULL DEFAULT false;
