-- AlterTable
ALTER TABLE "project_agent_settings" ADD COLUMN     "deferToolsOver" INTEGER NOT NULL DEFAULT 20,
ADD COLUMN     "excludeTools" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "model_setting" ADD COLUMN     "acceptsImages" BOOLEAN;

-- CreateTable
CREATE TABLE "session_image" (
    "sessionId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "mediaType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_image_pkey" PRIMARY KEY ("sessionId","hash")
);

-- AddForeignKey
ALTER TABLE "session_image" ADD CONSTRAINT "session_image_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
