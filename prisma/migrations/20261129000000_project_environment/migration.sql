-- A project's setup script, toolchain versions and last setup run (issue 42).
CREATE TABLE "project_environment" (
    "projectId" TEXT NOT NULL,
    "setupScript" TEXT,
    "nodeVersion" TEXT,
    "pythonVersion" TEXT,
    "setupStatus" TEXT,
    "setupExitCode" INTEGER,
    "setupSource" TEXT,
    "setupTrigger" TEXT,
    "setupStartedAt" TIMESTAMP(3),
    "setupEndedAt" TIMESTAMP(3),
    "setupOutput" TEXT NOT NULL DEFAULT '',
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "project_environment_pkey" PRIMARY KEY ("projectId")
);

ALTER TABLE "project_environment" ADD CONSTRAINT "project_environment_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
