-- AlterTable
ALTER TABLE "git_credential" ADD COLUMN     "fingerprint" TEXT,
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'token';

-- CreateTable
CREATE TABLE "git_known_host" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "keyType" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "git_known_host_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "git_known_host_projectId_host_keyType_key" ON "git_known_host"("projectId", "host", "keyType");

-- AddForeignKey
ALTER TABLE "git_known_host" ADD CONSTRAINT "git_known_host_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
