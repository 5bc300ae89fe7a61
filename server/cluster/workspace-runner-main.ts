import { ConfigError } from "@/server/env/load-config";
import { serveApi } from "@/server/cluster/serve-api";

// A workspace runner: the process that holds projects' terminals, language servers and MCP
// connections for the web instances of a cluster that set TANDEM_WORKSPACE_RUNNERS_URL (the unit a
// Kubernetes pod runs, deploy/k8s/workspace-runner.yaml). It serves only the requests the web
// instances forward to it, signed with the server secret (server/cluster/workspace-forwarding.ts),
// after checking the person's rights again itself; it holds each project by the workspace lease,
// passing a request for a project another runner holds on to that runner. It needs the same
// database, secret and data volume as the web instances, and TANDEM_CLUSTER=1.

serveApi({
  label: "workspace runner",
  runner: true,
  configure(config) {
    if (!config.cluster)
      throw new ConfigError("A workspace runner serves a cluster: set TANDEM_CLUSTER=1 and DATABASE_URL.");
    return { ...config, workspaceRunnersUrl: undefined };
  },
});
