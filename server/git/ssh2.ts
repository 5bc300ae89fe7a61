import { createRequire } from "node:module";
import type Ssh2 from "ssh2";

// ssh2 is loaded on first use, not with the server: loading it allocates a 16 MB WebAssembly heap
// for its poly1305 cipher (about 20 MB of an idle server's memory, bench:memory) that only a
// project with an ssh remote or an ssh key ever needs. It is CommonJS, so require keeps its
// callers synchronous.
let loaded: typeof Ssh2 | undefined;
export const ssh2 = (): typeof Ssh2 => (loaded ??= createRequire(import.meta.url)("ssh2") as typeof Ssh2);
