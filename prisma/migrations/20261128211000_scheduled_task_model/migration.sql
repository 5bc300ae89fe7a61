-- AlterTable
ALTER TABLE "scheduled_task" ADD COLUMN     "model" TEXT;
