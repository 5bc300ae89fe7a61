-- CreateTable
CREATE TABLE "workspace_lease" (
    "projectId" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "instanceUrl" TEXT NOT NULL,
    "leaseUntil" TIMESTAMP(3) NOT NULL,
    "renewedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_lease_pkey" PRIMARY KEY ("projectId")
);

-- CreateIndex
CREATE INDEX "workspace_lease_instanceId_idx" ON "workspace_lease"("instanceId");

-- AddForeignKey
ALTER TABLE "workspace_lease" ADD CONSTRAINT "workspace_lease_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
