import type { Db } from "@/server/db/client";
import * as repo from "@/server/db/repositories/project-channels";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import { type ChatPost, ChatDeliveryError, postChat } from "@/server/services/chat-webhooks";
import type { ProjectChannels } from "@/server/tools/send-message";
import type { ChatKind } from "@/lib/notifications";
import type { NetworkPolicy } from "@/lib/egress-policy";

// A project's chat channels (project settings, maintainers only): a name, a kind and an
// incoming-webhook URL sealed like secrets. The agent's send_message reaches them by name through
// `tool`; their URLs never leave the server (the list shows names and kinds). A project whose
// network policy is off sends nothing.

export type ProjectChannelService = ReturnType<typeof createProjectChannels>;

export function createProjectChannels(deps: {
  db: Db;
  cipher: CredentialCipher;
  chat: ChatPost;
  /** The project's network policy in force: with the network off, nothing is sent. */
  projectNetwork(projectId: string): Promise<NetworkPolicy>;
}) {
  const tool: ProjectChannels = {
    async names(projectId) {
      return (await repo.listChannels(deps.db, projectId)).map((c) => c.name);
    },
    async send(projectId, name, text) {
      const channel = await repo.findChannel(deps.db, projectId, name);
      const url = channel && deps.cipher.open(channel.sealed);
      if (!channel || !url)
        throw new ChatDeliveryError(`No channel '${name}' in this project (or it must be set again).`);
      // A channel is its maintainers' explicit choice of host, so an allow-list need not name it; "off" still means off.
      if ((await deps.projectNetwork(projectId)).policy === "off")
        throw new ChatDeliveryError("This project's network is off, so send_message sends nothing.");
      await postChat(channel.kind, url, { title: `Tandem agent in #${name}`, text }, deps.chat);
      return { kind: channel.kind };
    },
  };
  return {
    tool,
    list: (projectId: string) => repo.listChannels(deps.db, projectId),
    save(input: { projectId: string; name: string; kind: ChatKind; url: string; by: string }) {
      return repo.saveChannel(deps.db, {
        projectId: input.projectId,
        name: input.name,
        kind: input.kind,
        ...deps.cipher.seal(input.url),
        createdById: input.by,
      });
    },
    remove: (projectId: string, name: string) => repo.removeChannel(deps.db, projectId, name),
  };
}
