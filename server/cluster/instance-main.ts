import { serveApi } from "@/server/cluster/serve-api";

// One Tandem instance serving the API only, as the multi-instance harness (server/test/cluster.ts) and
// `bench:cluster` start it.

serveApi({});
