-- The project's approved hooks file (issue 43): its sha256, set by a project admin in Settings.
ALTER TABLE "project_agent_settings" ADD COLUMN "hooksDigest" TEXT;

-- Language servers a project adds by command and file globs (issue 43).
ALTER TABLE "project_tool_settings" ADD COLUMN "languageServers" JSONB NOT NULL DEFAULT '{}';
