-- AlterTable
ALTER TABLE "project" ADD COLUMN     "gitForge" TEXT;
