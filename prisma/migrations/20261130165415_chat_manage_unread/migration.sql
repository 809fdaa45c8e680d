-- AlterTable
ALTER TABLE "conversation" ADD COLUMN     "lastReadSeq" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "pinnedAt" TIMESTAMPTZ(3),
ADD COLUMN     "titleSource" TEXT NOT NULL DEFAULT 'none',
ADD COLUMN     "unreadCount" INTEGER NOT NULL DEFAULT 0;

-- Conversations from before read marks count as read, and titles they already have came from a message.
UPDATE "conversation" SET "lastReadSeq" = "messageSeq", "titleSource" = CASE WHEN "title" = 'New chat' THEN 'none' ELSE 'message' END;
