-- AlterTable
ALTER TABLE "team" ADD COLUMN     "internalHosts" TEXT[] DEFAULT ARRAY[]::TEXT[];
