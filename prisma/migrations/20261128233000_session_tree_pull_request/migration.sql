-- AlterTable
ALTER TABLE "session_tree" ADD COLUMN     "pullRequestUrl" TEXT;
