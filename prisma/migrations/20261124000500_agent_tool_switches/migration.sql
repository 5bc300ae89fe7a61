-- AlterTable
ALTER TABLE "project_agent_settings" ADD COLUMN     "excludeTools" JSONB NOT NULL DEFAULT '[]';
