-- The index is a cache of the workspace: empty it so every chunk is re-read with its hash.
DELETE FROM "knowledge_file";

-- AlterTable
ALTER TABLE "knowledge_chunk" ADD COLUMN     "hash" TEXT NOT NULL;

-- CreateTable
CREATE TABLE "knowledge_embedding" (
    "projectId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "vector" DOUBLE PRECISION[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_embedding_pkey" PRIMARY KEY ("projectId","model","hash")
);

-- CreateIndex
CREATE INDEX "knowledge_chunk_projectId_hash_idx" ON "knowledge_chunk"("projectId", "hash");

-- AddForeignKey
ALTER TABLE "knowledge_embedding" ADD CONSTRAINT "knowledge_embedding_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
