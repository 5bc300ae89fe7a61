-- AlterTable
ALTER TABLE "agent_session" ADD COLUMN     "treeId" TEXT;

-- CreateTable
CREATE TABLE "session_tree" (
    "sessionId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "baseRef" TEXT NOT NULL,
    "baseCommit" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "session_tree_pkey" PRIMARY KEY ("sessionId")
);

-- CreateIndex
CREATE INDEX "session_tree_projectId_idx" ON "session_tree"("projectId");

-- AddForeignKey
ALTER TABLE "session_tree" ADD CONSTRAINT "session_tree_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
