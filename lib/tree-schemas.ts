import { z } from "zod";
import { MAIN_TREE } from "@/lib/trees";

// The server's check of a tree's name (lib/trees.ts, which the IDE's first screen imports, stays
// free of zod: docs/ide.md, "Opening a file").

/** How the URL (`?tree=`) and the API name a tree. */
export const treeNameSchema = z.union([z.literal(MAIN_TREE), z.string().uuid()]);
