-- AlterTable
ALTER TABLE "memory" ADD COLUMN     "pinned" BOOLEAN NOT NULL DEFAULT false;
