-- CreateTable
CREATE TABLE "turn_job" (
    "sessionId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "leaseUntil" TIMESTAMP(3) NOT NULL,
    "takeovers" INTEGER NOT NULL DEFAULT 0,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "turn_job_pkey" PRIMARY KEY ("sessionId")
);

-- CreateIndex
CREATE INDEX "turn_job_leaseUntil_idx" ON "turn_job"("leaseUntil");

-- AddForeignKey
ALTER TABLE "turn_job" ADD CONSTRAINT "turn_job_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
