import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BRIDGE_SCRIPT } from "./bridge-script";
import { FD_RELAY_MODULE } from "./fd-relay";
import { HOLDER_SCRIPT } from "./holder-script";
import { identityFileContents } from "./identity";
import { NODE_PRELOAD_SCRIPT } from "./node-env-proxy";
import { TOOLCHAIN_MOUNT } from "@/lib/toolchains";

// Files the server makes for its sandboxes, in one folder of its own: the passwd and group seen
// inside, the network bridge and its native module, the workspace network's holder, Node's proxy preload, the CA bundle
// (trust-store.ts) and the egress sockets. The unprivileged sandbox uid must be able to
// open them to bind them (x on the folders, r on the files) but not list the folder, so another
// project's socket name stays unknown to it.

export type RuntimeDir = {
  root: string;
  passwd: string;
  group: string;
  bridge: string;
  /** The script that holds a workspace's network namespace (workspace-network.ts). */
  holder: string;
  /** The preload that routes old Nodes' fetch through the proxy (node-env-proxy.ts). */
  nodePreload: string;
  /** The login shells' profile.d script that puts the project's toolchains first on the PATH. */
  toolchainProfile: string;
  /** The bridge's copy of the native module (fd-relay.ts), when it is built. */
  relayModule: string | null;
  sockets: string;
};

const TOOLCHAIN_PROFILE = `# The project's toolchains first on the PATH (Tandem): /etc/profile has just set PATH anew.
for d in ${TOOLCHAIN_MOUNT}/*/bin; do
  case ":$PATH:" in *":$d:"*) ;; *) [ -d "$d" ] && PATH="$d:$PATH" ;; esac
done
unset d
export PATH
`;

let runtime: RuntimeDir | undefined;

export function runtimeDir(): RuntimeDir {
  if (runtime) return runtime;
  const root = mkdtempSync(path.join(tmpdir(), "tandem-sandbox-"));
  chmodSync(root, 0o711);
  const files = identityFileContents();
  const passwd = path.join(root, "passwd");
  const group = path.join(root, "group");
  const bridge = path.join(root, "bridge.cjs");
  writeFileSync(passwd, files.passwd, { mode: 0o644 });
  writeFileSync(group, files.group, { mode: 0o644 });
  writeFileSync(bridge, BRIDGE_SCRIPT, { mode: 0o644 });
  const holder = path.join(root, "holder.cjs");
  writeFileSync(holder, HOLDER_SCRIPT, { mode: 0o644 });
  const nodePreload = path.join(root, "node-env-proxy.cjs");
  writeFileSync(nodePreload, NODE_PRELOAD_SCRIPT, { mode: 0o644 });
  const toolchainProfile = path.join(root, "toolchains-profile.sh");
  writeFileSync(toolchainProfile, TOOLCHAIN_PROFILE, { mode: 0o644 });
  let relayModule: string | null = null;
  if (existsSync(FD_RELAY_MODULE)) {
    relayModule = path.join(root, "fd_relay.node");
    copyFileSync(FD_RELAY_MODULE, relayModule);
    chmodSync(relayModule, 0o644);
  }
  const sockets = path.join(root, "egress");
  mkdirSync(sockets, { mode: 0o711 });
  chmodSync(sockets, 0o711);
  runtime = { root, passwd, group, bridge, holder, nodePreload, toolchainProfile, relayModule, sockets };
  return runtime;
}
