import type { Workspace } from "@/server/workspace";
import type { Tool } from "@/server/tools/define-tool";
import type { KnowledgeSearch } from "@/server/tools/search-knowledge-base";
import type { UserMemoryMeaning } from "@/server/tools/memory";
import type { TaskScheduler } from "@/server/tools/schedule-task";
import type { MailSender } from "@/server/tools/send-email";
import type { ProjectChannels } from "@/server/tools/send-message";
import type { McpServerStatus } from "@/server/tools/mcp/project-servers";
import type { ProjectTelemetry } from "@/server/tools/status";
import type { ForgeCall, ForgeKind } from "@/server/tools/forge-api";

// What the server adds to the agent beyond its own tools, each optional: the project's MCP and
// discovered tools, the knowledge index, the scheduler, mail, chat channels. The runtime only sees these
// interfaces; server/services/extensions.ts builds them from the database, pg-boss and SMTP.

export type AgentExtensions = {
  /** The project's MCP and discovered tools for a turn. Never throws: a broken server just brings no tools. */
  projectTools?(projectId: string, workspace: Workspace): Promise<Tool[]>;
  /** The project's MCP servers and their state now (the status tool). */
  mcpServers?(projectId: string): Promise<McpServerStatus[]>;
  /** The project's tool and model metrics since a time, from the session log (the status tool). */
  telemetry?(projectId: string, since: Date): Promise<ProjectTelemetry>;
  knowledge?: KnowledgeSearch;
  /** memory search's ranking of the user's memories by meaning, when an embedding model is configured. */
  memoryMeaning?: UserMemoryMeaning;
  /** The forge APIs (github_api, gitlab_api) open to the person a turn works for: those they stored a token for. */
  forgeApi?(personId: string, projectId: string): Promise<Partial<Record<ForgeKind, ForgeCall>>>;
  scheduler?: TaskScheduler;
  /** Present only when SMTP is configured: `send_email` is registered only then. */
  mail?: MailSender;
  /** The project's chat channels: `send_message` is registered for a project that has some. */
  channels?: ProjectChannels;
  /** Over this many deferrable tools, their schemas wait behind tool_search (default 20). */
  deferToolsOver?: number;
};
