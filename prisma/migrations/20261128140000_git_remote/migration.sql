-- AlterTable
ALTER TABLE "project" ADD COLUMN     "gitRemoteUrl" TEXT;
