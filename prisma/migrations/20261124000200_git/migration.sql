-- AlterTable
ALTER TABLE "project" ADD COLUMN     "gitPullMode" TEXT NOT NULL DEFAULT 'merge';

-- CreateTable
CREATE TABLE "git_credential" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "userId" TEXT,
    "teamId" TEXT,
    "keyId" TEXT NOT NULL,
    "secret" BYTEA NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "git_credential_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "git_credential_userId_idx" ON "git_credential"("userId");

-- CreateIndex
CREATE INDEX "git_credential_teamId_idx" ON "git_credential"("teamId");

-- AddForeignKey
ALTER TABLE "git_credential" ADD CONSTRAINT "git_credential_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "git_credential" ADD CONSTRAINT "git_credential_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
