-- CreateTable
CREATE TABLE "project_network_settings" (
    "projectId" TEXT NOT NULL,
    "policy" TEXT NOT NULL DEFAULT 'allow-list',
    "allowHosts" TEXT[],
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "project_network_settings_pkey" PRIMARY KEY ("projectId")
);

-- CreateTable
CREATE TABLE "egress_connection" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "allowed" BOOLEAN NOT NULL,
    "reason" TEXT,
    "bytesIn" BIGINT NOT NULL DEFAULT 0,
    "bytesOut" BIGINT NOT NULL DEFAULT 0,
    "sourceKind" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "egress_connection_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "egress_connection_projectId_createdAt_idx" ON "egress_connection"("projectId", "createdAt");

-- AddForeignKey
ALTER TABLE "project_network_settings" ADD CONSTRAINT "project_network_settings_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "egress_connection" ADD CONSTRAINT "egress_connection_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
