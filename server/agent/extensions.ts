import type { Workspace } from "@/server/workspace";
import type { Tool } from "@/server/tools/define-tool";
import type { KnowledgeSearch } from "@/server/tools/search-knowledge-base";
import type { TaskScheduler } from "@/server/tools/schedule-task";
import type { MailSender } from "@/server/tools/send-email";
import type { ProjectChannels } from "@/server/tools/send-message";
import type { McpServerStatus } from "@/server/tools/mcp/project-servers";

// What the server adds to the agent beyond its own tools, each optional: the project's MCP and
// discovered tools, the knowledge index, the scheduler, mail, chat channels. The runtime only sees these
// interfaces; server/services/extensions.ts builds them from the database, pg-boss and SMTP.

export type AgentExtensions = {
  /** The project's MCP and discovered tools for a turn. Never throws: a broken server just brings no tools. */
  projectTools?(projectId: string, workspace: Workspace): Promise<Tool[]>;
  /** The project's MCP servers and their state now (the status tool). */
  mcpServers?(projectId: string): Promise<McpServerStatus[]>;
  knowledge?: KnowledgeSearch;
  scheduler?: TaskScheduler;
  /** Present only when SMTP is configured: `send_email` is registered only then. */
  mail?: MailSender;
  /** The project's chat channels: `send_message` is registered for a project that has some. */
  channels?: ProjectChannels;
  /** Over this many deferrable tools, their schemas wait behind tool_search (default 20). */
  deferToolsOver?: number;
};
